package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// maxMessage is the largest message body the server reads (64 MiB); a
// larger Content-Length is garbage.
const maxMessage = 64 << 20

// stream is the LSP base protocol (Content-Length framed JSON) as a
// jsonrpc2.ObjectStream that survives garbage: lines that are no header
// are skipped until a frame starts, and a body that is no JSON-RPC message
// is answered with a parse error, and reading goes on. Only the end of the
// input (or a read error) ends it.
type stream struct {
	r  *bufio.Reader
	w  io.Writer
	c  io.Closer
	mu sync.Mutex // serialises writes
}

func newStream(rwc io.ReadWriteCloser) *stream {
	return &stream{r: bufio.NewReader(rwc), w: rwc, c: rwc}
}

// ReadObject reads the next message that decodes into v.
func (s *stream) ReadObject(v any) error {
	for {
		body, err := s.frame()
		if err != nil {
			return err
		}
		if body == nil {
			continue // garbage skipped
		}
		if err := json.Unmarshal(body, v); err != nil {
			// JSON-RPC 2.0: a parse error or an invalid request is answered
			// with id null.
			code, msg := -32700, "parse error: "+err.Error()
			if json.Valid(body) {
				code, msg = -32600, "invalid request: "+err.Error()
			}
			if werr := s.WriteObject(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": code, "message": msg}}); werr != nil {
				return werr
			}
			continue
		}
		return nil
	}
}

// frame reads one header block and its body. A block without a valid
// Content-Length gives a nil body: the caller reads on.
func (s *stream) frame() ([]byte, error) {
	length := -1
	sawHeader := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !sawHeader {
				continue // blank lines between frames
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			// Not a header: garbage; start over.
			length, sawHeader = -1, false
			continue
		}
		sawHeader = true
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 || n > maxMessage {
				length = -1
				continue
			}
			length = n
		}
	}
	if length < 0 {
		return nil, nil
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// WriteObject writes obj as one framed message.
func (s *stream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
		return err
	}
	_, err = s.w.Write(b)
	return err
}

func (s *stream) Close() error { return s.c.Close() }
