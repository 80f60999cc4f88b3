// Package spell finds the name nearest to a misspelt one, for the
// "did you mean" of an error (as starlark-go's internal/spell does): lang
// suggests names of the program, serq tui keys of a tour file.
package spell

// Nearest is the candidate nearest to name by edit distance, "" when none
// is near enough: within 2 edits, or 1 for a name of at most 3 characters.
// A candidate equal to name is never suggested.
func Nearest(name string, candidates []string) string {
	best, bestD := "", 3
	if len([]rune(name)) <= 3 {
		bestD = 2
	}
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d := Distance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in characters.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
