package tui

// tooDeep scans a tour's YAML for nesting deeper than max before the YAML
// parser sees it, and returns the line and column (1-based) where it
// passes max; ok is true when it does not. It counts, conservatively,
// the block levels a line opens (its indentation against the lines
// before it, and each `- ` or `? ` that starts it) and the flow
// collections (`[`, `{`) open at each point, skipping quoted text,
// comments and the lines of a block scalar (`|`, `>`). A tour nests four
// levels deep; a text that fools the count into too high a depth is no
// tour a person writes.
func tooDeep(src []byte, max int) (line, col int, ok bool) {
	var indents []int // the indentation of the open block levels
	block := 0        // the block depth where the open flow collections began
	flow := 0         // flow collections open
	scalar := -1      // in a block scalar: the indentation of its key's line
	quote := byte(0)  // in a quoted scalar of a flow collection
	n := len(src)
	line = 1
	for start := 0; start < n; line++ {
		end := start
		for end < n && src[end] != '\n' {
			end++
		}
		text := src[start:end]
		start = end + 1
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		blank := indent == len(text) || text[indent] == '#' || text[indent] == '\r'
		if scalar >= 0 {
			if blank || indent > scalar {
				continue
			}
			scalar = -1
		}
		i := 0
		if flow == 0 {
			if blank {
				continue
			}
			for len(indents) > 0 && indents[len(indents)-1] >= indent {
				indents = indents[:len(indents)-1]
			}
			indents = append(indents, indent)
			block = len(indents)
			i = indent
			for i+1 < len(text) && (text[i] == '-' || text[i] == '?') && text[i+1] == ' ' {
				block++
				i += 2
				for i < len(text) && text[i] == ' ' {
					i++
				}
			}
			if block > max {
				return line, i + 1, false
			}
			// A block line opens a flow collection at its node's start or
			// at the value after `key: `; a `|` or `>` there starts a block
			// scalar.
			if i < len(text) && text[i] != '[' && text[i] != '{' {
				i = valueStart(text, i)
			}
			if i < 0 || i >= len(text) {
				continue
			}
			switch text[i] {
			case '|', '>':
				scalar = indent
				continue
			case '[', '{':
			default:
				continue
			}
		}
		for ; i < len(text); i++ {
			c := text[i]
			if quote != 0 {
				switch {
				case c == '\\' && quote == '"':
					i++
				case c == quote:
					quote = 0
				}
				continue
			}
			switch c {
			case '"', '\'':
				quote = c
			case '#':
				if i == 0 || text[i-1] == ' ' || text[i-1] == '\t' {
					i = len(text)
				}
			case '[', '{':
				flow++
				if block+flow > max {
					return line, i + 1, false
				}
			case ']', '}':
				if flow > 0 {
					flow--
				}
				if flow == 0 {
					i = len(text) // the rest of the line is the block's
				}
			}
		}
	}
	return 0, 0, true
}

// valueStart is the index of the value after the first `: ` (or a `:`
// ending the line) of a block line's text from i, outside quotes and
// before a comment; -1 if there is none.
func valueStart(text []byte, i int) int {
	quote := byte(0)
	for ; i < len(text); i++ {
		c := text[i]
		if quote != 0 {
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch {
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && i > 0 && (text[i-1] == ' ' || text[i-1] == '\t'):
			return -1
		case c == ':' && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t'):
			j := i + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			return j
		}
	}
	return -1
}
