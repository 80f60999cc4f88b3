package main

// snippetWidth is the most characters of a source line an error quotes;
// a longer line is cut around the column, each cut marked with "…", so
// that a one-line program of megabytes does not flood stderr.
const snippetWidth = 100

// snippet cuts line around col (1-based, in characters) to at most
// snippetWidth characters plus the marks, and returns the column of the
// same character in the cut line (0 stays 0).
func snippet(line string, col int) (string, int) {
	runes := []rune(line)
	if len(runes) <= snippetWidth {
		return line, col
	}
	c := max(col, 1) - 1 // 0-based
	start := max(c-snippetWidth/2, 0)
	end := min(start+snippetWidth, len(runes))
	start = max(end-snippetWidth, 0)
	out := string(runes[start:end])
	if col > 0 {
		col -= start
	}
	if start > 0 {
		out = "…" + out
		if col > 0 {
			col++
		}
	}
	if end < len(runes) {
		out += "…"
	}
	return out, col
}
