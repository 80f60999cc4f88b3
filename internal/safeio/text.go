package safeio

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is s without its control characters (C0 but for tab and
// newline, DEL and C1), invalid UTF-8 written as U+FFFD: text from a
// program, a tour or an IR that may reach a terminal. A string without
// any is returned as it is.
func Printable(s string) string {
	if printable(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// PrintableLine is [Printable] for text shown on one line: newlines and
// tabs become spaces too.
func PrintableLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, Printable(s))
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return printableRunes(s[i:])
		}
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func printableRunes(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// CSV writes records as encoding/csv does, each cell neutralised by
// [CSVCell] (the package doc, "Text that leaves serq").
type CSV struct {
	w   *csv.Writer
	rec []string
}

// NewCSV is a CSV writer on w.
func NewCSV(w io.Writer) *CSV { return &CSV{w: csv.NewWriter(w)} }

// Write writes one record.
func (c *CSV) Write(rec []string) error {
	c.rec = c.rec[:0]
	for _, cell := range rec {
		c.rec = append(c.rec, CSVCell(cell))
	}
	return c.w.Write(c.rec)
}

// Flush writes what is buffered and returns the first error.
func (c *CSV) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

// CSVCell is cell as a CSV serq writes has it: a cell a spreadsheet
// would read as a formula (starting with '=', '+', '-', '@', a tab or a
// carriage return) and not a number, or a cell starting with "'", gets a
// leading "'".
func CSVCell(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '\'':
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(cell, 64); err == nil {
			return cell
		}
	default:
		return cell
	}
	return "'" + cell
}

// CSVValue is the raw value of a cell [CSVCell] wrote.
func CSVValue(cell string) string { return strings.TrimPrefix(cell, "'") }
