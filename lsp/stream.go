package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/serq/serq/internal/safeio"
)

// The protocol's limits. A message carries at most a whole document
// (lang.MaxSourceSize, 1 MiB) with JSON's escapes (six bytes for a
// control character at most): 8 MiB holds one. A larger message's body is
// skipped, unread into memory, and answered with an error; a header line
// is at most maxHeaderLine bytes, the rest of a longer one (garbage
// without a newline) is skipped as it comes.
const (
	// MaxMessage is the largest message body the server reads, in bytes.
	MaxMessage    = 8 << 20
	maxHeaderLine = 4 << 10
)

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
	return &stream{r: bufio.NewReaderSize(rwc, maxHeaderLine), w: rwc, c: rwc}
}

// ReadObject reads the next message that decodes into v.
func (s *stream) ReadObject(v any) error {
	for {
		body, err := s.frame()
		var large *tooLarge
		if errors.As(err, &large) {
			if werr := s.WriteObject(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": -32600, "message": large.Error()}}); werr != nil {
				return werr
			}
			continue
		}
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
	length := int64(-1)
	sawHeader := false
	for {
		line, err := s.line()
		if err != nil {
			return nil, err
		}
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
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				length = -1
				continue
			}
			length = n
		}
	}
	if length < 0 {
		return nil, nil
	}
	if length > MaxMessage {
		if _, err := io.CopyN(io.Discard, s.r, length); err != nil {
			return nil, err
		}
		return nil, &tooLarge{length}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// line reads a header line without its end. A line longer than
// maxHeaderLine is no header: what fits is returned (it does not parse)
// and the rest skipped, never held in memory.
func (s *stream) line() (string, error) {
	b, err := s.r.ReadSlice('\n')
	line := strings.TrimRight(string(b), "\r\n")
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = s.r.ReadSlice('\n')
	}
	return line, err
}

// tooLarge is a message past MaxMessage, skipped.
type tooLarge struct{ n int64 }

func (e *tooLarge) Error() string {
	return fmt.Sprintf("a message of %d bytes, larger than %s, the limit: skipped", e.n, safeio.Size(MaxMessage))
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
