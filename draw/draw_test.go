package draw

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// examples are the example programs, relative to this package.
func examples(t *testing.T) []string {
	t.Helper()
	files := testutil.Examples(t, "../examples")
	return files
}

func load(t *testing.T, file string) *model.Program {
	t.Helper()
	p, err := lang.Load(file, lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatalf("Load(%s): %v", file, err)
	}
	return p
}

// goldenName is the golden file of an example: examples/a/b.sq → testdata/a_b.
func goldenName(file string) string {
	rel := strings.TrimPrefix(filepath.ToSlash(file), "../examples/")
	return filepath.Join("testdata", strings.ReplaceAll(strings.TrimSuffix(rel, ".sq"), "/", "_"))
}

func TestTextGolden(t *testing.T) {
	for _, f := range examples(t) {
		p := load(t, f)
		testutil.Golden(t, goldenName(f)+".txt", []byte(Text(p, 100, nil)))
	}
}

type fakeLive struct{}

func (fakeLive) PoolLine(pool int) string   { return "used " + strconv.Itoa(pool*100) }
func (fakeLive) StageLine(stage int) string { return "busy " + strconv.Itoa(stage) }

func TestTextNarrowAndLive(t *testing.T) {
	p := load(t, "../examples/pd-disaggregation/llmd_nixl_pull.sq")
	testutil.Golden(t, "testdata/pull_w60.txt", []byte(Text(p, 60, nil)))
	testutil.Golden(t, "testdata/pull_live.txt", []byte(Text(p, 100, fakeLive{})))
}

// node is a parsed XML element.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Kids    []*node    `xml:",any"`
}

func (n *node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *node) num(t *testing.T, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n.attr(name), 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.XMLName.Local, name, n.attr(name), err)
	}
	return v
}

// walk calls f on n and every element under it, depth first.
func (n *node) walk(f func(*node)) {
	f(n)
	for _, k := range n.Kids {
		k.walk(f)
	}
}

func parseSVG(t *testing.T, b []byte) *node {
	t.Helper()
	var root node
	if err := xml.Unmarshal(b, &root); err != nil {
		t.Fatalf("the SVG does not parse as XML: %v", err)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root element %v, want svg in the SVG namespace", root.XMLName)
	}
	return &root
}

// outline is the SVG's structure: each group (class and data-name) and
// each text, indented by nesting, without coordinates.
func outline(n *node, depth int, b *strings.Builder) {
	switch n.XMLName.Local {
	case "g":
		fmt.Fprintf(b, "%s%s %q\n", strings.Repeat("  ", depth), n.attr("class"), n.attr("data-name"))
		depth++
	case "text", "title":
		fmt.Fprintf(b, "%s%s %q\n", strings.Repeat("  ", depth), n.XMLName.Local, strings.TrimSpace(n.Text))
	case "rect", "path":
		if depth > 0 {
			fmt.Fprintf(b, "%s%s\n", strings.Repeat("  ", depth), n.XMLName.Local)
		}
	}
	for _, k := range n.Kids {
		if k.XMLName.Local == "defs" {
			continue
		}
		outline(k, depth, b)
	}
}

// TestSVGStructure checks that every example draws as standalone SVG that
// parses, and compares the boxes and labels it contains with a golden
// outline.
func TestSVGStructure(t *testing.T) {
	for _, f := range examples(t) {
		b := SVG(load(t, f))
		root := parseSVG(t, b)
		src := string(b)
		for _, bad := range []string{"<script", "<image", "<foreignObject", "href=", "@import", "url(http", "<style"} {
			if strings.Contains(src, bad) {
				t.Errorf("%s: the SVG contains %q; it must be standalone", f, bad)
			}
		}
		if !strings.Contains(root.attr("font-family"), "monospace") {
			t.Errorf("%s: font-family %q has no generic family", f, root.attr("font-family"))
		}
		w, h := root.num(t, "width"), root.num(t, "height")
		root.walk(func(n *node) {
			if n.XMLName.Local != "rect" {
				return
			}
			x, y := n.num(t, "x"), n.num(t, "y")
			if x < 0 || y < 0 || x+n.num(t, "width") > w+0.01 || y+n.num(t, "height") > h+0.01 {
				t.Errorf("%s: a rect at (%v, %v) leaves the %v×%v canvas", f, x, y, w, h)
			}
		})
		var out strings.Builder
		outline(root, 0, &out)
		testutil.Golden(t, goldenName(f)+".svg.outline", []byte(out.String()))
	}
}

type bounds struct{ x, y, w, h float64 }

func (a bounds) contains(b bounds) bool {
	return a.x <= b.x && a.y <= b.y && b.x+b.w <= a.x+a.w && b.y+b.h <= a.y+a.h
}

// groups returns each <g> of the given class by data-name, with the
// bounds of its first rect and the texts under it.
func groups(t *testing.T, root *node, class string) (map[string]bounds, map[string][]string) {
	t.Helper()
	box := map[string]bounds{}
	texts := map[string][]string{}
	root.walk(func(n *node) {
		if n.XMLName.Local != "g" || n.attr("class") != class {
			return
		}
		name := n.attr("data-name")
		for _, k := range n.Kids {
			if k.XMLName.Local == "rect" {
				box[name] = bounds{k.num(t, "x"), k.num(t, "y"), k.num(t, "width"), k.num(t, "height")}
				break
			}
		}
		n.walk(func(k *node) {
			if k.XMLName.Local == "text" {
				texts[name] = append(texts[name], strings.TrimSpace(k.Text))
			}
		})
	})
	return box, texts
}

// TestSVGSeed checks the seed example's figure: the router, P[0], P[1],
// D[0], D[1], each with its engine, pools and NIC inside its box, and the
// read's bracket around a prefiller's NIC and a decoder's.
func TestSVGSeed(t *testing.T) {
	root := parseSVG(t, SVG(load(t, "../examples/pd-disaggregation/llmd_nixl_pull.sq")))
	routers, rtexts := groups(t, root, "router")
	if _, ok := routers["gw"]; !ok || !slices.Contains(rtexts["gw"], "entries: route") {
		t.Errorf("router gw missing or unlabelled: %v", rtexts)
	}
	members, mtexts := groups(t, root, "member")
	engines, _ := groups(t, root, "engine")
	pools, _ := groups(t, root, "pool")
	memories, _ := groups(t, root, "memory")
	nics, _ := groups(t, root, "nic")
	for _, q := range []string{"P", "D"} {
		for i := range 2 {
			m := fmt.Sprintf("%s[%d]", q, i)
			mb, ok := members[m]
			if !ok {
				t.Errorf("no member box %s", m)
				continue
			}
			want := map[string]map[string]bounds{
				fmt.Sprintf("engine %s on %s.gpu", m, q):       engines,
				fmt.Sprintf("pool %s.reqs[%d] on %s", q, i, q): pools,
				fmt.Sprintf("nic %s.nic[%d]", q, i):            nics,
			}
			kv := fmt.Sprintf("pool %s.kv[%d] on %s.gpu", q, i, q)
			if q == "D" {
				kv += ", admitted by D"
			}
			want[kv] = memories
			for name, set := range want {
				b, ok := set[name]
				if !ok {
					t.Errorf("%s: no %q", m, name)
				} else if !mb.contains(b) {
					t.Errorf("%s: %q at %v is outside the box %v", m, name, b, mb)
				}
			}
			for _, s := range []string{"tokens cap 8192", "ps(200000)", "cap 160000 · block 16"} {
				if !slices.Contains(mtexts[m], s) {
					t.Errorf("%s: no label %q in %q", m, s, mtexts[m])
				}
			}
		}
	}
	brackets, btexts := groups(t, root, "bracket")
	br, ok := brackets["P.nic[i] + D.nic[j]"]
	if !ok {
		t.Fatalf("no bracket around P.nic[i] + D.nic[j]: %v", brackets)
	}
	if !br.contains(nics["nic P.nic[0]"]) || !br.contains(nics["nic D.nic[0]"]) {
		t.Errorf("the bracket %v does not enclose P.nic[0] %v and D.nic[0] %v", br, nics["nic P.nic[0]"], nics["nic D.nic[0]"])
	}
	if br.contains(members["P[0]"]) || br.contains(members["D[0]"]) {
		t.Errorf("the bracket %v encloses a whole member box", br)
	}
	if !slices.Contains(btexts["P.nic[i] + D.nic[j]"], "read holds") {
		t.Errorf("bracket labels %q, want %q", btexts["P.nic[i] + D.nic[j]"], "read holds")
	}
	_, ttexts := groups(t, root, "transfer")
	if got := ttexts["P.kv[i] → D.kv[j]"]; !slices.Contains(got, "P.kv[i] → D.kv[j]") || !slices.Contains(got, "after latency 0.002") {
		t.Errorf("transfer labels %q", got)
	}
}

// TestDocs checks that docs/*.svg are what serq draw gives today
// (go test ./draw -update rewrites them).
func TestDocs(t *testing.T) {
	for _, name := range []string{"llmd_nixl_pull", "vllm_nixl_push"} {
		got := SVG(load(t, "../examples/pd-disaggregation/"+name+".sq"))
		testutil.Golden(t, "../docs/"+name+".svg", got)
	}
}

func TestDeterministic(t *testing.T) {
	p := load(t, "../examples/pd-disaggregation/llmd_nixl_pull.sq")
	a, b := SVG(p), SVG(p)
	t1, t2 := Text(p, 100, nil), Text(p, 100, nil)
	if !bytes.Equal(a, b) || t1 != t2 {
		t.Error("two renderings of one program differ")
	}
}
