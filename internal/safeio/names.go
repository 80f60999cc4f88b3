package safeio

import (
	"fmt"
	"strings"
	"unicode"
)

// maxName is the most bytes of a file name made by [FileName], its
// extension to come included (file systems take 255).
const maxName = 200

// FileName is name as a file name that cannot leave its directory: a
// character that is not a letter, a digit, '_', '-' or '.' becomes '_',
// a name that is empty or starts with '.' is prefixed with '_', and a
// name longer than 200 bytes is cut. An identifier is unchanged.
func FileName(name string) string {
	var b strings.Builder
	if name == "" || name[0] == '.' {
		b.WriteByte('_')
	}
	for _, r := range name {
		if r != '_' && r != '-' && r != '.' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			r = '_'
		}
		if b.Len()+len(string(r)) > maxName {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// DuplicateNameError is two names that [FileNames] would write to one
// file.
type DuplicateNameError struct {
	What       string // "observe"
	A, B, File string
}

func (e *DuplicateNameError) Error() string {
	return fmt.Sprintf("the %ss %q and %q would both be written to %s", e.What, Printable(e.A), Printable(e.B), e.File)
}

// FileNames are names as file names ([FileName]) with ext appended. Two
// names that become the same file, letter case aside (a case-insensitive
// file system), are a [DuplicateNameError]; what names their kind.
func FileNames(what string, names []string, ext string) ([]string, error) {
	out := make([]string, len(names))
	seen := map[string]int{}
	for i, n := range names {
		out[i] = FileName(n) + ext
		key := strings.ToLower(out[i])
		if j, ok := seen[key]; ok {
			return nil, &DuplicateNameError{What: what, A: names[j], B: n, File: out[i]}
		}
		seen[key] = i
	}
	return out, nil
}
