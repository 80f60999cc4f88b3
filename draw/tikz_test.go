package draw

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// tikzCommand is a drawing command of the picture: its style and, for a
// node, its text.
var tikzCommand = regexp.MustCompile(`^\\(node|draw)\[serq ([a-z ]+?)[,\]].*?(?: at \([-0-9.,]+\))?(?: (\{.*\});)?$`)

// tikzOutline is the picture's structure: each comment naming what follows
// and each command's style and text, without coordinates or sizes.
func tikzOutline(t *testing.T, file string, src []byte) string {
	t.Helper()
	var b strings.Builder
	in := false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case line == `\begin{tikzpicture}`:
			in = true
		case line == `\end{tikzpicture}`:
			in = false
		case !in || strings.HasPrefix(line, `\definecolor`) || strings.HasPrefix(line, "  serq ") ||
			line == `\tikzset{` || line == "}" || line == `\frenchspacing`:
		case strings.HasPrefix(line, "% "):
			b.WriteString(line + "\n")
		case strings.HasPrefix(line, `\path (current bounding box`):
		default:
			m := tikzCommand.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%s: a line of the picture is not a serq command: %q", file, line)
				continue
			}
			b.WriteString("  " + m[1] + " " + m[2])
			if m[3] != "" {
				b.WriteString(" " + m[3])
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestTikZStructure compares the boxes, rows, links and labels of every
// example's TikZ picture with a golden outline, and checks that the braces
// of the picture balance (a name with a brace is escaped).
func TestTikZStructure(t *testing.T) {
	for _, f := range examples(t) {
		src := TikZ(load(t, f), false)
		if !bytes.HasPrefix(src, []byte("% serq draw: ")) || !bytes.HasSuffix(src, []byte("\\end{tikzpicture}\n")) {
			t.Errorf("%s: not one tikzpicture", f)
		}
		if err := balanced(string(src)); err != "" {
			t.Errorf("%s: %s", f, err)
		}
		golden(t, goldenName(f)+".tikz.outline", tikzOutline(t, f, src))
	}
}

// balanced reports unbalanced braces outside escapes, or "".
func balanced(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '%':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth < 0 {
				return "a } closes nothing at byte " + strconv.Itoa(i)
			}
		}
	}
	if depth != 0 {
		return "unbalanced braces"
	}
	return ""
}

// TestTikZSeed checks the seed example's picture: every member box with
// its rows, the transfer and the bracket with their labels.
func TestTikZSeed(t *testing.T) {
	src := string(TikZ(load(t, "../examples/pd-disaggregation/llmd_nixl_pull.sq"), false))
	for _, want := range []string{
		`% router "gw"`,
		`{\textbf{gw} gateway\\{\scriptsize entries: route}};`,
		`% member "P[0]"`, `% member "D[1]"`,
		`{engine P[0] on P.gpu\\{\scriptsize\color{serqdim}tokens cap 8192}};`,
		`{pool D.kv[1] on D.gpu, admitted by D\\{\scriptsize\color{serqdim}cap 160000 $\cdot$ block 16}};`,
		`% transfer "P.kv[i] → D.kv[j]"`,
		`{\textbf{P.kv[i] $\rightarrow$ D.kv[j]}\\after latency 0.002};`,
		`% bracket "P.nic[i] + D.nic[j]"`,
		`{\textbf{read holds}\\P.nic[i] + D.nic[j]};`,
		`{D pull P: D reads the KV from P, after latency 0.002 (D.nic.latency), share maxmin};`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the seed's picture has no %q", want)
		}
	}
	// Three dotted pairs: P[0]–D[1], P[1]–D[0], P[1]–D[1].
	if n := strings.Count(src, `\draw[serq fabric]`); n != 3 {
		t.Errorf("%d dotted pairs, want 3", n)
	}
}

func TestTeXEscape(t *testing.T) {
	for in, want := range map[string]string{
		`a_b`:       `a\_b`,
		`50% & #1`:  `50\% \& \#1`,
		`{x}`:       `\{x\}`,
		`$\`:        `\$\textbackslash{}`,
		"~^":        `\textasciitilde{}\textasciicircum{}`,
		"a → b · c": `a $\rightarrow$ b $\cdot$ c`,
		"two\nline": "two line",
	} {
		if got := tex(in); got != want {
			t.Errorf("tex(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTikZDeterministic(t *testing.T) {
	p := load(t, "../examples/pd-disaggregation/llmd_nixl_pull.sq")
	if !bytes.Equal(TikZ(p, true), TikZ(p, true)) {
		t.Error("two renderings of one program differ")
	}
}

// TestTikZCompiles runs pdflatex on the standalone document of every
// example, where pdflatex is installed (Debian: texlive-latex-base and
// texlive-pictures).
func TestTikZCompiles(t *testing.T) {
	latex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("pdflatex is not installed (apt-get install texlive-latex-base texlive-pictures); the TikZ is not compiled")
	}
	dir := t.TempDir()
	// Names LaTeX reads specially, and a Latin letter outside ASCII.
	odd := filepath.Join(dir, "odd_names.sq")
	if err := os.WriteFile(odd, []byte("fn main() {\n  stage pré_fill : fifo;\n  pool kv_cache { cap 10; block 2; }\n"+
		"  workload { arrive poisson(1); }\n"+
		"  server { hold kv_cache (cost(kv_cache, 1)) { run pré_fill (cost(pré_fill, 1)); } }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(examples(t), odd) {
		name := filepath.Base(goldenName(f))
		tex := filepath.Join(dir, name+".tex")
		if err := os.WriteFile(tex, TikZ(load(t, f), true), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(latex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", name+".tex")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("pdflatex %s: %v\n%s", name, err, out)
			continue
		}
		pdf, err := os.ReadFile(filepath.Join(dir, name+".pdf"))
		if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Errorf("pdflatex %s wrote no PDF: %v", name, err)
		}
		if n := bytes.Count(pdf, []byte("/Type /Page\n")) + bytes.Count(pdf, []byte("/Type/Page\n")); n > 1 {
			t.Errorf("%s: %d pages, want 1", name, n)
		}
		if log, _ := os.ReadFile(filepath.Join(dir, name+".log")); bytes.Contains(log, []byte("Missing character")) {
			t.Errorf("%s: the font lacks a character the picture uses", name)
		}
	}
}
