package draw

import (
	"math"
	"strconv"
	"strings"

	"github.com/serq/serq/model"
)

// TikZ renders the figure as a TikZ picture for LaTeX slides and papers:
// the same scene as [SVG] and [Text], laid out on a grid of centimetres.
// The picture needs only \usepackage{tikz} (no TikZ library); its colours
// and styles are defined inside the tikzpicture environment, so it can be
// \input into a document as it is. With standalone, the picture is wrapped
// in a document of the article class whose one page is the picture's size,
// which pdflatex compiles by itself.
//
// Each box, row, link and label is preceded by a comment naming what it
// draws in the SVG's classes (router, member, engine, pool, memory, nic,
// stage, bracket, transfer, fabric, legend), and every style is
// `serq <class>`, so that a reader can restyle the figure with \tikzset.
func TikZ(p *model.Program, standalone bool) []byte {
	f := &tikzFig{s: build(p)}
	return f.render(standalone)
}

// Geometry, in centimetres. A character of the monospace font is about
// 0.525 em wide: 0.15 cm in \footnotesize (8 pt), 0.13 cm in \scriptsize.
const (
	tzHead    = 0.15 // a row's name, \footnotesize
	tzDetail  = 0.13 // a row's detail and the labels, \scriptsize
	tzTitle   = 0.18 // a box's title, bold \small
	tzElemH   = 0.9
	tzElemGap = 0.15
	tzPad     = 0.25
	tzTitleH  = 0.65
	tzLinkGap = 5.5
	tzColGap  = 1.0
	tzRowGap  = 0.6
	tzMinColW = 5.0
)

// tikzColors are the SVG's colours, by name for \definecolor.
var tikzColors = [][2]string{
	{"serqink", "212529"}, {"serqdim", "495057"}, {"serqaccent", "D9480F"},
	{"serqboxfill", "F8F9FA"}, {"serqboxdraw", "868E96"},
	{"serqrouterfill", "FFF0F6"}, {"serqrouterdraw", "A61E4D"},
	{"serqenginefill", "D0EBFF"}, {"serqenginedraw", "1971C2"},
	{"serqstagefill", "E9ECEF"}, {"serqstagedraw", "495057"},
	{"serqpoolfill", "D3F9D8"}, {"serqpooldraw", "2F9E44"},
	{"serqmemoryfill", "FFF3BF"}, {"serqmemorydraw", "E67700"},
	{"serqnicfill", "E5DBFF"}, {"serqnicdraw", "6741D9"},
}

// tikzStyles are the styles the picture defines, one per class.
var tikzStyles = []string{
	`serq text/.style={font=\ttfamily\scriptsize, text=serqdim, inner sep=1pt, anchor=west}`,
	`serq title/.style={font=\ttfamily\normalsize\bfseries, text=serqink, inner sep=1pt, anchor=west}`,
	`serq arrow/.style={draw=serqdim, thick, ->}`,
	`serq router/.style={draw=serqrouterdraw, fill=serqrouterfill, thick, rounded corners=4pt, anchor=north west, align=left, inner sep=5pt, font=\ttfamily\footnotesize, text=serqink}`,
	`serq member/.style={draw=serqboxdraw, fill=serqboxfill, thick, rounded corners=5pt}`,
	`serq member title/.style={font=\ttfamily\small, text=serqink, inner sep=1pt, anchor=north west}`,
	`serq row/.style={thin, rounded corners=2pt, anchor=north west, align=left, inner sep=4pt, font=\ttfamily\footnotesize, text=serqink}`,
	`serq engine/.style={serq row, draw=serqenginedraw, fill=serqenginefill}`,
	`serq stage/.style={serq row, draw=serqstagedraw, fill=serqstagefill}`,
	`serq pool/.style={serq row, draw=serqpooldraw, fill=serqpoolfill}`,
	`serq memory/.style={serq row, draw=serqmemorydraw, fill=serqmemoryfill}`,
	`serq nic/.style={serq row, draw=serqnicdraw, fill=serqnicfill}`,
	`serq fabric/.style={draw=serqaccent, densely dotted, opacity=0.5}`,
	`serq transfer/.style={draw=serqaccent, very thick, ->}`,
	`serq bracket/.style={draw=serqaccent, fill=serqaccent, fill opacity=0.06, very thick, dashed, rounded corners=6pt}`,
	`serq accent/.style={font=\ttfamily\scriptsize, text=serqaccent, inner sep=1pt, align=center}`,
	`serq legend/.style={font=\ttfamily\scriptsize, text=serqaccent, inner sep=1pt, anchor=west}`,
}

// tikzFig is a figure being written; y grows downwards and is negated in
// the output.
type tikzFig struct {
	s     *scene
	b     strings.Builder
	nodes int // node names issued
}

func cm(x float64) string {
	v := math.Round(x*100) / 100
	if v == 0 {
		v = 0 // no -0
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// at is the TikZ coordinate of (x, y) with y downwards.
func at(x, y float64) string { return "(" + cm(x) + "," + cm(-y) + ")" }

// node issues a fresh node name.
func (f *tikzFig) node() string {
	f.nodes++
	return "n" + strconv.Itoa(f.nodes)
}

func (f *tikzFig) line(s string) {
	f.b.WriteString(s)
	f.b.WriteByte('\n')
}

// comment writes a comment naming what the next commands draw.
func (f *tikzFig) comment(class, name string) {
	f.line("% " + class + " " + strconv.Quote(name))
}

func (f *tikzFig) render(standalone bool) []byte {
	if standalone {
		f.line(`\documentclass{article}`)
		f.line(`\usepackage{tikz}`)
		f.line(`\pagestyle{empty}`)
		f.line(`\begin{document}`)
		f.line(`% The page is the picture's size (pdfTeX; LuaTeX and XeTeX name the lengths alike).`)
		f.line(`\ifdefined\pdfpagewidth\else\ifdefined\pagewidth\let\pdfpagewidth\pagewidth\let\pdfpageheight\pageheight\fi\fi`)
		f.line(`\newsavebox\serqfigure`)
		f.line(`\sbox\serqfigure{%`)
	}
	f.line("% serq draw: " + oneLine(f.s.file))
	f.line(`\begin{tikzpicture}`)
	f.line(`\frenchspacing`)
	for _, c := range tikzColors {
		f.line(`\definecolor{` + c[0] + `}{HTML}{` + c[1] + `}`)
	}
	f.line(`\tikzset{`)
	for i, st := range tikzStyles {
		sep := ","
		if i == len(tikzStyles)-1 {
			sep = ""
		}
		f.line("  " + st + sep)
	}
	f.line(`}`)
	f.comment("title", "deployment of "+f.s.file)
	f.line(`\node[serq title] at ` + at(0, 0) + ` {` + tex("deployment of "+f.s.file) + `};`)
	y := 0.7
	if len(f.s.cols) > 0 || len(f.s.gateways) > 0 {
		y = f.queues(y)
	} else {
		y = f.chain(y)
	}
	f.others(y)
	f.line(`% a margin around everything`)
	f.line(`\path (current bounding box.south west) ++(-0.3,-0.3) (current bounding box.north east) ++(0.3,0.3);`)
	f.line(`\end{tikzpicture}`)
	if standalone {
		f.line(`}%`)
		f.line(`\pdfpagewidth=\wd\serqfigure`)
		f.line(`\pdfpageheight=\dimexpr\ht\serqfigure+\dp\serqfigure\relax`)
		f.line(`\hoffset=-1in \voffset=-1in`)
		f.line(`\shipout\vbox{\box\serqfigure}`)
		f.line(`\end{document}`)
	}
	return []byte(f.b.String())
}

// tzColWidth is the width of column c's boxes.
func tzColWidth(c *column) float64 {
	w := tzMinColW
	for _, b := range c.boxes {
		w = math.Max(w, float64(runeLen(b.title))*tzTitle+float64(runeLen(b.role)+2)*tzHead+2*tzPad)
		for _, e := range b.elems {
			w = math.Max(w, tzElemW(e)+2*tzPad)
		}
	}
	return w
}

func tzElemW(e elem) float64 {
	return math.Max(float64(runeLen(e.head))*tzHead, float64(runeLen(e.detail))*tzDetail) + 0.4
}

func tzBoxHeight(b *box) float64 {
	n := float64(len(b.elems))
	if n == 0 {
		return tzTitleH + tzPad
	}
	return tzTitleH + n*tzElemH + (n-1)*tzElemGap + tzPad
}

// tzCol is a column placed: each member's box and the names of its rows'
// nodes.
type tzCol struct {
	x, w  float64
	boxes []rect
	rows  [][]string // node names
	elems [][]rect
}

// queues draws the router, the columns and their links from y and returns
// the y below them.
func (f *tikzFig) queues(y float64) float64 {
	s := f.s
	cols := make([]tzCol, len(s.cols))
	cw := 0.0
	for ci := range s.cols {
		cw = math.Max(cw, tzColWidth(&s.cols[ci]))
	}
	x := 0.0
	for ci := range s.cols {
		cols[ci].x, cols[ci].w = x, cw
		x += cw
		if ci+1 < len(s.cols) {
			x += f.gap(ci)
		}
	}
	right := x
	if len(s.cols) == 0 {
		right = 8
	}
	f.comment("text", s.arrivals)
	f.line(`\node[serq text] at ` + at(0, y) + ` {` + tex(s.arrivals) + `};`)
	if len(s.gateways) > 0 {
		f.line(`\draw[serq arrow] ` + at(0.5, y+0.25) + ` -- ` + at(0.5, y+0.85) + `;`)
		y += 0.9
		gw := (right - float64(len(s.gateways)-1)*tzColGap) / float64(len(s.gateways))
		for gi, g := range s.gateways {
			gx := float64(gi) * (gw + tzColGap)
			f.comment("router", g.title)
			f.line(`\node[serq router, minimum width=` + cm(gw) + `cm, text width=` + cm(gw-0.36) + `cm] (` + f.node() + `) at ` +
				at(gx, y) + ` {\textbf{` + tex(g.title) + `} ` + tex(g.role) + `\\{\scriptsize ` + tex("entries: "+g.entries) + `}};`)
		}
		y += 1.1
		for ci := range s.cols {
			cx := cols[ci].x + 0.8
			f.line(`\draw[serq arrow] ` + at(cx, y) + ` -- ` + at(cx, y+0.9) + `;`)
			f.comment("text", s.cols[ci].entries)
			f.line(`\node[serq text] at ` + at(cx+0.15, y+0.45) + ` {` + tex(s.cols[ci].entries) + `};`)
		}
		y += 1.0
	} else {
		y += 0.5
	}
	rows := 0
	for _, c := range s.cols {
		rows = max(rows, len(c.boxes))
	}
	for r := 0; r < rows; r++ {
		h := 0.0
		for _, c := range s.cols {
			if r < len(c.boxes) {
				h = math.Max(h, tzBoxHeight(&c.boxes[r]))
			}
		}
		for ci := range s.cols {
			c := &s.cols[ci]
			if r >= len(c.boxes) {
				cols[ci].boxes = append(cols[ci].boxes, rect{})
				cols[ci].rows = append(cols[ci].rows, nil)
				cols[ci].elems = append(cols[ci].elems, nil)
				continue
			}
			br := rect{cols[ci].x, y, cols[ci].w, h}
			names, places := f.box(&c.boxes[r], br, c.nicLeft)
			cols[ci].boxes = append(cols[ci].boxes, br)
			cols[ci].rows = append(cols[ci].rows, names)
			cols[ci].elems = append(cols[ci].elems, places)
		}
		y += h + tzRowGap
	}
	for _, l := range s.links {
		f.link(l, cols)
	}
	return f.legend(y)
}

// gap is the space after column ci: wide where a link crosses it.
func (f *tikzFig) gap(ci int) float64 {
	for _, l := range f.s.links {
		if min(l.src, l.dst) == ci && max(l.src, l.dst) == ci+1 {
			return tzLinkGap
		}
	}
	return tzColGap
}

// box draws b in r and returns its rows' node names and places.
func (f *tikzFig) box(b *box, r rect, nicLeft bool) ([]string, []rect) {
	f.comment("member", b.title)
	f.line(`\draw[serq member] ` + at(r.x, r.y) + ` rectangle ` + at(r.right(), r.bottom()) + `;`)
	title := `\textbf{` + tex(b.title) + `}`
	if b.role != "" {
		title += ` {\footnotesize\color{serqdim}` + tex(b.role) + `}`
	}
	f.line(`\node[serq member title] at ` + at(r.x+tzPad, r.y+0.15) + ` {` + title + `};`)
	var names []string
	var places []rect
	for i, e := range b.elems {
		er := rect{r.x + tzPad, r.y + tzTitleH + float64(i)*(tzElemH+tzElemGap), r.w - 2*tzPad, tzElemH}
		if i == b.nic {
			er.w = tzElemW(e)
			er.y = r.bottom() - tzPad - tzElemH
			if !nicLeft {
				er.x = r.right() - tzPad - er.w
			}
		}
		names = append(names, f.elem(e, er))
		places = append(places, er)
	}
	return names, places
}

// elem draws one row and returns its node's name.
func (f *tikzFig) elem(e elem, r rect) string {
	n := f.node()
	f.comment(kindClass[e.kind], e.head)
	f.line(`\node[serq ` + kindClass[e.kind] + `, minimum width=` + cm(r.w) + `cm, text width=` + cm(r.w-0.28) +
		`cm, minimum height=` + cm(r.h) + `cm] (` + n + `) at ` + at(r.x, r.y) + ` {` + tex(e.head) +
		`\\{\scriptsize\color{serqdim}` + tex(e.detail) + `}};`)
	return n
}

// link draws relation l between the first members of its columns, as the
// SVG does: the other pairs of NICs dotted, the KV arrow from pool to pool
// and the bracket around both NICs.
func (f *tikzFig) link(l link, cols []tzCol) {
	s := f.s
	sc, dc := &s.cols[l.src], &s.cols[l.dst]
	if len(sc.boxes) == 0 || len(dc.boxes) == 0 || l.src == l.dst {
		return
	}
	sb, db := &sc.boxes[0], &dc.boxes[0]
	ltr := cols[l.src].x < cols[l.dst].x
	out, in := ".east", ".west"
	if !ltr {
		out, in = ".west", ".east"
	}
	if sb.nic >= 0 && db.nic >= 0 {
		f.comment("fabric", l.srcNIC+" + "+l.dstNIC)
		for a := range sc.boxes {
			for b := range dc.boxes {
				if a == 0 && b == 0 {
					continue
				}
				f.line(`\draw[serq fabric] (` + cols[l.src].rows[a][sc.boxes[a].nic] + out + `) -- (` +
					cols[l.dst].rows[b][dc.boxes[b].nic] + in + `);`)
			}
		}
	}
	if sb.kv >= 0 && db.kv >= 0 {
		ks, kd := cols[l.src].elems[0][sb.kv], cols[l.dst].elems[0][db.kv]
		x1, x2 := ks.right(), kd.x
		if !ltr {
			x1, x2 = ks.x, kd.right()
		}
		mx := (x1 + x2) / 2
		y1, y2 := ks.midY(), kd.midY()
		f.comment("transfer", l.move)
		from, to := `(`+cols[l.src].rows[0][sb.kv]+out+`)`, `(`+cols[l.dst].rows[0][db.kv]+in+`)`
		if y1 == y2 {
			f.line(`\draw[serq transfer] ` + from + ` -- ` + to + `;`)
		} else {
			f.line(`\draw[serq transfer] ` + from + ` -| ` + at(mx, (y1+y2)/2) + ` |- ` + to + `;`)
		}
		f.line(`\node[serq accent, above] at ` + at(mx, math.Min(y1, y2)-0.1) + ` {\textbf{` + tex(l.move) + `}\\` +
			tex(l.afterShort) + `};`)
	}
	if sb.nic >= 0 && db.nic >= 0 {
		ns, nd := cols[l.src].elems[0][sb.nic], cols[l.dst].elems[0][db.nic]
		x1 := math.Min(ns.x, nd.x) - 0.15
		x2 := math.Max(ns.right(), nd.right()) + 0.15
		y1 := math.Min(ns.y, nd.y) - 0.15
		y2 := math.Max(ns.bottom(), nd.bottom()) + 0.15
		f.comment("bracket", l.srcNIC+" + "+l.dstNIC)
		f.line(`\draw[serq bracket] ` + at(x1, y1) + ` rectangle ` + at(x2, y2) + `;`)
		cx := (math.Min(ns.right(), nd.right()) + math.Max(ns.x, nd.x)) / 2
		f.line(`\node[serq accent] at ` + at(cx, (y1+y2)/2) + ` {\textbf{` + tex(l.verb()+" holds") + `}\\` +
			tex(l.srcNIC+" + "+l.dstNIC) + `};`)
	}
}

// legend explains the links in words below y.
func (f *tikzFig) legend(y float64) float64 {
	for _, l := range f.s.links {
		first := l.rel + ", " + l.after
		if l.share != "" {
			first += ", " + l.share
		}
		lines := []string{first,
			"the " + l.verb() + " holds " + l.srcNIC + " and " + l.dstNIC + " at once (dashed bracket) and moves " + l.move}
		if len(f.s.cols[l.src].boxes) > 1 || len(f.s.cols[l.dst].boxes) > 1 {
			lines = append(lines, "dotted: the other pairs of members the router may pick")
		}
		for _, s := range lines {
			f.comment("legend", s)
			f.line(`\node[serq legend] at ` + at(0, y) + ` {` + tex(s) + `};`)
			y += 0.4
		}
		y += 0.2
	}
	return y
}

// chain draws a program without queues: its stations left to right in the
// order sessions reach them.
func (f *tikzFig) chain(y float64) float64 {
	s := f.s
	h := tzElemH
	for i := range s.chain {
		if s.chain[i].title != "" {
			h = math.Max(h, tzBoxHeight(&s.chain[i]))
		}
	}
	top := y + 0.5
	cy := top + h/2
	f.comment("text", s.arrivals)
	f.line(`\node[serq text, anchor=south west] at ` + at(0, cy-0.1) + ` {` + tex(s.arrivals) + `};`)
	x := 0.0
	aw := math.Max(float64(runeLen(s.arrivals))*tzDetail+0.3, 1.6)
	for _, b := range s.chain {
		f.line(`\draw[serq arrow] ` + at(x, cy) + ` -- ` + at(x+aw, cy) + `;`)
		x += aw
		aw = 1.2
		if b.title == "" && len(b.elems) == 1 {
			r := rect{x, cy - tzElemH/2, tzElemW(b.elems[0]), tzElemH}
			f.elem(b.elems[0], r)
			x = r.right()
			continue
		}
		bw := tzColWidth(&column{boxes: []box{b}})
		bh := tzBoxHeight(&b)
		f.box(&b, rect{x, cy - bh/2, bw, bh}, false)
		x += bw
	}
	return top + h + 0.3
}

// others draws the stages and pools no box holds, in a row below y.
func (f *tikzFig) others(y float64) {
	if len(f.s.others) == 0 {
		return
	}
	y += 0.4
	f.comment("text", "also:")
	f.line(`\node[serq text] at ` + at(0, y+tzElemH/2) + ` {also:};`)
	x := 1.0
	for _, e := range f.s.others {
		e.head = strings.TrimSpace(e.head)
		r := rect{x, y, tzElemW(e), tzElemH}
		f.elem(e, r)
		x = r.right() + 0.3
	}
}

// texEscapes are the characters LaTeX reads specially, and the two
// non-ASCII ones the figure's own words use.
var texEscapes = strings.NewReplacer(
	`\`, `\textbackslash{}`, `{`, `\{`, `}`, `\}`, `$`, `\$`, `&`, `\&`, `#`, `\#`,
	`%`, `\%`, `_`, `\_`, `^`, `\textasciicircum{}`, `~`, `\textasciitilde{}`,
	`→`, `$\rightarrow$`, `·`, `$\cdot$`, "\n", " ",
)

// tex is s as LaTeX text. The picture's words are program names, numbers
// and the figure's own labels; a program or file name with other
// non-ASCII letters is written as it is (pdflatex's UTF-8 input reads
// the Latin ones).
func tex(s string) string { return texEscapes.Replace(s) }

// oneLine is s for a comment: no line break may end it.
func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }
