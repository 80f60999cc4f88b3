package draw

import (
	"bytes"
	"encoding/xml"
	"math"
	"strconv"
	"strings"

	"github.com/serq/serq/model"
)

// SVG renders the figure as a standalone SVG document: no scripts, no
// external fonts (generic monospace), colours as presentation attributes.
// Every box is a <g> whose class says what it is (router, member, engine,
// pool, memory, nic, stage, bracket, transfer) and whose data-name is the
// program's name for it.
func SVG(p *model.Program) []byte {
	f := &svgFig{s: build(p)}
	return f.render()
}

// Geometry, in SVG user units (pixels).
const (
	margin   = 24.0
	fsTitle  = 15.0 // a box's title
	fsHead   = 13.0 // a row's name
	fsDetail = 12.0 // a row's detail, labels
	charW    = 0.6  // width of a monospace character, in ems
	elemH    = 44.0 // a row
	elemGap  = 8.0
	boxPad   = 12.0
	titleH   = 36.0 // the title band of a box
	linkGap  = 260.0
	colGap   = 48.0
	rowGap   = 28.0
	minColW  = 240.0
)

const font = "ui-monospace, SFMono-Regular, Menlo, Consolas, DejaVu Sans Mono, Liberation Mono, monospace"

// Colours: a fill and a stroke for each kind of row.
var kindColors = map[elemKind][2]string{
	kEngine: {"#d0ebff", "#1971c2"},
	kStage:  {"#e9ecef", "#495057"},
	kPool:   {"#d3f9d8", "#2f9e44"},
	kMemory: {"#fff3bf", "#e67700"},
	kNIC:    {"#e5dbff", "#6741d9"},
}

var kindClass = map[elemKind]string{kEngine: "engine", kStage: "stage", kPool: "pool", kMemory: "memory", kNIC: "nic"}

const (
	ink    = "#212529"
	dim    = "#495057"
	accent = "#d9480f" // the transfer: bracket and KV arrow
)

func textW(s string, fs float64) float64 { return float64(runeLen(s)) * fs * charW }

func elemW(e elem) float64 { return math.Max(textW(e.head, fsHead), textW(e.detail, fsDetail)) + 26 }

func ff(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) }

// svgw writes SVG elements.
type svgw struct{ b bytes.Buffer }

func (w *svgw) attrs(kv []string) {
	for i := 0; i+1 < len(kv); i += 2 {
		w.b.WriteString(" " + kv[i] + `="`)
		xml.EscapeText(&w.b, []byte(kv[i+1]))
		w.b.WriteByte('"')
	}
}

func (w *svgw) open(tag string, kv ...string) {
	w.b.WriteString("<" + tag)
	w.attrs(kv)
	w.b.WriteString(">\n")
}

func (w *svgw) close(tag string) { w.b.WriteString("</" + tag + ">\n") }

func (w *svgw) empty(tag string, kv ...string) {
	w.b.WriteString("<" + tag)
	w.attrs(kv)
	w.b.WriteString("/>\n")
}

func (w *svgw) text(x, y, fs float64, s string, kv ...string) {
	w.b.WriteString("<text")
	w.attrs(append([]string{"x", ff(x), "y", ff(y), "font-size", ff(fs)}, kv...))
	w.b.WriteByte('>')
	xml.EscapeText(&w.b, []byte(s))
	w.b.WriteString("</text>\n")
}

func (w *svgw) rect(x, y, wd, h, rx float64, fill, stroke string, kv ...string) {
	w.empty("rect", append([]string{"x", ff(x), "y", ff(y), "width", ff(wd), "height", ff(h), "rx", ff(rx),
		"fill", fill, "stroke", stroke}, kv...)...)
}

func (w *svgw) arrow(d, color, marker string, kv ...string) {
	w.empty("path", append([]string{"d", d, "fill", "none", "stroke", color, "stroke-width", "1.5",
		"marker-end", "url(#" + marker + ")"}, kv...)...)
}

// rect is a placed rectangle.
type rect struct{ x, y, w, h float64 }

func (r rect) right() float64  { return r.x + r.w }
func (r rect) bottom() float64 { return r.y + r.h }
func (r rect) midY() float64   { return r.y + r.h/2 }

type svgFig struct {
	s          *scene
	w          svgw
	body       svgw // drawn after the size is known
	maxX, maxY float64
}

func (f *svgFig) grow(x, y float64) {
	f.maxX = math.Max(f.maxX, x)
	f.maxY = math.Max(f.maxY, y)
}

func (f *svgFig) render() []byte {
	y := margin
	f.body.text(margin, y+14, 16, "deployment of "+f.s.file, "font-weight", "bold", "fill", ink)
	f.grow(margin+textW("deployment of "+f.s.file, 16), y+14)
	y += 30
	if len(f.s.cols) > 0 || len(f.s.gateways) > 0 {
		y = f.queues(y)
	} else {
		y = f.chain(y)
	}
	y = f.others(y)
	width, height := f.maxX+margin, math.Max(f.maxY, y)+margin

	w := &f.w
	w.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", ff(width), "height", ff(height),
		"viewBox", "0 0 "+ff(width)+" "+ff(height), "font-family", font, "role", "img")
	w.b.WriteString("<title>")
	xml.EscapeText(&w.b, []byte("serq draw: "+f.s.file))
	w.b.WriteString("</title>\n")
	w.open("defs")
	for _, m := range [][2]string{{"arrow", dim}, {"arrow-kv", accent}} {
		w.open("marker", "id", m[0], "viewBox", "0 0 10 10", "refX", "9", "refY", "5",
			"markerWidth", "7", "markerHeight", "7", "orient", "auto-start-reverse")
		w.empty("path", "d", "M0,0 L10,5 L0,10 z", "fill", m[1])
		w.close("marker")
	}
	w.close("defs")
	w.rect(0, 0, width, height, 0, "#ffffff", "none")
	w.b.Write(f.body.b.Bytes())
	w.close("svg")
	return w.b.Bytes()
}

// colLayout is a column placed.
type colLayout struct {
	x, w  float64
	boxes []rect   // each member's box
	elems [][]rect // each member's rows
}

func (f *svgFig) colWidth(c *column) float64 {
	w := minColW
	for _, b := range c.boxes {
		w = math.Max(w, textW(b.title, fsTitle)+textW("  "+b.role, fsHead)+2*boxPad)
		for _, e := range b.elems {
			w = math.Max(w, elemW(e)+2*boxPad)
		}
	}
	return w
}

// boxHeight is the height of b's box: its title band and its rows.
func boxHeight(b *box) float64 {
	n := float64(len(b.elems))
	if n == 0 {
		return titleH + boxPad
	}
	return titleH + n*elemH + (n-1)*elemGap + boxPad
}

// queues draws the router, the columns of members and their links from y;
// it returns the y below them.
func (f *svgFig) queues(y float64) float64 {
	s := f.s
	// Columns, left to right.
	cols := make([]colLayout, len(s.cols))
	cw := 0.0 // one width for all, so that the figure is symmetric
	for ci := range s.cols {
		cw = math.Max(cw, f.colWidth(&s.cols[ci]))
	}
	x := margin
	for ci := range s.cols {
		cols[ci].x = x
		cols[ci].w = cw
		x += cols[ci].w
		if ci+1 < len(s.cols) {
			x += f.gap(ci)
		}
	}
	left, right := margin, x
	if len(s.cols) == 0 {
		right = margin + 360
	}
	// Arrivals and the router.
	f.body.text(left, y+14, fsDetail, s.arrivals, "fill", dim)
	f.grow(left+textW(s.arrivals, fsDetail), y)
	ax := left + 24
	if len(s.gateways) > 0 {
		f.body.arrow("M"+ff(ax)+" "+ff(y+20)+" V"+ff(y+44), dim, "arrow")
		y += 46
		gw := (right - left - float64(len(s.gateways)-1)*colGap) / float64(len(s.gateways))
		for gi, g := range s.gateways {
			gx := left + float64(gi)*(gw+colGap)
			f.body.open("g", "class", "router", "data-name", g.title)
			f.body.rect(gx, y, gw, 52, 8, "#fff0f6", "#a61e4d", "stroke-width", "1.5")
			f.body.text(gx+boxPad, y+21, fsTitle, g.title, "font-weight", "bold", "fill", ink)
			f.body.text(gx+boxPad+textW(g.title+" ", fsTitle), y+21, fsHead, g.role, "fill", dim)
			f.body.text(gx+boxPad, y+41, fsDetail, "entries: "+g.entries, "fill", dim)
			f.body.close("g")
			f.grow(gx+gw, y+52)
		}
		y += 52
		// Arrows down to each column, with the entries called.
		for ci := range s.cols {
			cx := cols[ci].x + 40
			f.body.arrow("M"+ff(cx)+" "+ff(y)+" V"+ff(y+46), dim, "arrow")
			f.body.text(cx+8, y+27, fsDetail, s.cols[ci].entries, "fill", dim)
			f.grow(cx+8+textW(s.cols[ci].entries, fsDetail), y)
		}
		y += 48
	} else {
		y += 24
	}
	// Members, row by row; in a row every box is as high as the highest so
	// that the NICs, at the bottom, line up.
	rows := 0
	for _, c := range s.cols {
		rows = max(rows, len(c.boxes))
	}
	for r := 0; r < rows; r++ {
		h := 0.0
		for _, c := range s.cols {
			if r < len(c.boxes) {
				h = math.Max(h, boxHeight(&c.boxes[r]))
			}
		}
		for ci := range s.cols {
			c := &s.cols[ci]
			if r >= len(c.boxes) {
				cols[ci].boxes = append(cols[ci].boxes, rect{})
				cols[ci].elems = append(cols[ci].elems, nil)
				continue
			}
			br := rect{cols[ci].x, y, cols[ci].w, h}
			cols[ci].boxes = append(cols[ci].boxes, br)
			cols[ci].elems = append(cols[ci].elems, f.box(&c.boxes[r], br, c.nicLeft))
		}
		y += h + rowGap
	}
	// Links over the boxes.
	for _, l := range s.links {
		f.link(l, cols)
	}
	return f.legend(y)
}

// gap is the space after column ci.
func (f *svgFig) gap(ci int) float64 {
	for _, l := range f.s.links {
		if min(l.src, l.dst) == ci && max(l.src, l.dst) == ci+1 {
			return linkGap
		}
	}
	return colGap
}

// box draws b in r and returns where its rows went.
func (f *svgFig) box(b *box, r rect, nicLeft bool) []rect {
	w := &f.body
	w.open("g", "class", "member", "data-name", b.title)
	w.rect(r.x, r.y, r.w, r.h, 10, "#f8f9fa", "#868e96", "stroke-width", "1.5")
	w.text(r.x+boxPad, r.y+24, fsTitle, b.title, "font-weight", "bold", "fill", ink)
	if b.role != "" {
		w.text(r.x+boxPad+textW(b.title+"  ", fsTitle), r.y+24, fsHead, b.role, "fill", dim)
	}
	var out []rect
	for i, e := range b.elems {
		er := rect{r.x + boxPad, r.y + titleH + float64(i)*(elemH+elemGap), r.w - 2*boxPad, elemH}
		if i == b.nic {
			er.w = elemW(e)
			er.y = r.bottom() - boxPad - elemH
			if !nicLeft {
				er.x = r.right() - boxPad - er.w
			}
		}
		f.elem(e, er)
		out = append(out, er)
	}
	w.close("g")
	f.grow(r.right(), r.bottom())
	return out
}

// elem draws one row: a coloured rectangle with the name and the detail.
func (f *svgFig) elem(e elem, r rect) {
	w := &f.body
	c := kindColors[e.kind]
	w.open("g", "class", kindClass[e.kind], "data-name", e.head)
	w.rect(r.x, r.y, r.w, r.h, 5, c[0], c[1], "stroke-width", "1.2")
	w.text(r.x+10, r.y+18, fsHead, e.head, "fill", ink)
	w.text(r.x+10, r.y+35, fsDetail, e.detail, "fill", dim)
	w.close("g")
	f.grow(r.right(), r.bottom())
}

// link draws relation l between the first members of its columns: the
// bracket around both NICs and the KV arrow from pool to pool. The other
// pairs of NICs are joined by dotted lines: any pair may be the one.
func (f *svgFig) link(l link, cols []colLayout) {
	s := f.s
	sc, dc := &s.cols[l.src], &s.cols[l.dst]
	if len(sc.boxes) == 0 || len(dc.boxes) == 0 || l.src == l.dst {
		return
	}
	w := &f.body
	sb, db := &sc.boxes[0], &dc.boxes[0]
	leftToRight := cols[l.src].x < cols[l.dst].x
	// The other pairs, faint, under the rest.
	if sb.nic >= 0 && db.nic >= 0 {
		w.open("g", "class", "fabric")
		for a := range sc.boxes {
			for b := range dc.boxes {
				if a == 0 && b == 0 {
					continue
				}
				na, nb := cols[l.src].elems[a][sc.boxes[a].nic], cols[l.dst].elems[b][dc.boxes[b].nic]
				x1, x2 := na.right(), nb.x
				if !leftToRight {
					x1, x2 = na.x, nb.right()
				}
				w.empty("path", "d", "M"+ff(x1)+" "+ff(na.midY())+" L"+ff(x2)+" "+ff(nb.midY()),
					"fill", "none", "stroke", accent, "stroke-width", "1", "stroke-dasharray", "2 4", "opacity", "0.45")
			}
		}
		w.close("g")
	}
	// The transfer: P.kv[i] → D.kv[j].
	if sb.kv >= 0 && db.kv >= 0 {
		ks, kd := cols[l.src].elems[0][sb.kv], cols[l.dst].elems[0][db.kv]
		x1, x2 := ks.right(), kd.x
		if !leftToRight {
			x1, x2 = ks.x, kd.right()
		}
		y1, y2 := ks.midY(), kd.midY()
		mx := (x1 + x2) / 2
		d := "M" + ff(x1) + " " + ff(y1) + " H" + ff(mx) + " V" + ff(y2) + " H" + ff(x2-dir(leftToRight)*2)
		if y1 == y2 {
			d = "M" + ff(x1) + " " + ff(y1) + " H" + ff(x2-dir(leftToRight)*2)
		}
		w.open("g", "class", "transfer", "data-name", l.move)
		w.empty("path", "d", d, "fill", "none", "stroke", accent, "stroke-width", "2.5", "marker-end", "url(#arrow-kv)")
		ty := math.Min(y1, y2)
		w.text(mx, ty-24, fsHead, l.move, "text-anchor", "middle", "font-weight", "bold", "fill", accent)
		w.text(mx, ty-8, fsDetail, l.afterShort, "text-anchor", "middle", "fill", accent)
		w.close("g")
	}
	// The bracket around both NICs.
	if sb.nic >= 0 && db.nic >= 0 {
		ns, nd := cols[l.src].elems[0][sb.nic], cols[l.dst].elems[0][db.nic]
		x1 := math.Min(ns.x, nd.x) - 7
		x2 := math.Max(ns.right(), nd.right()) + 7
		y1 := math.Min(ns.y, nd.y) - 7
		y2 := math.Max(ns.bottom(), nd.bottom()) + 7
		w.open("g", "class", "bracket", "data-name", l.srcNIC+" + "+l.dstNIC)
		w.rect(x1, y1, x2-x1, y2-y1, 12, accent, accent, "fill-opacity", "0.06", "stroke-width", "2.5",
			"stroke-dasharray", "8 4")
		gl, gr := math.Min(ns.right(), nd.right()), math.Max(ns.x, nd.x) // the gap between the NICs
		cx := (gl + gr) / 2
		w.text(cx, (y1+y2)/2-3, fsHead, l.verb()+" holds", "text-anchor", "middle", "font-weight", "bold", "fill", accent)
		w.text(cx, (y1+y2)/2+13, fsDetail, l.srcNIC+" + "+l.dstNIC, "text-anchor", "middle", "fill", accent)
		w.close("g")
	}
}

func dir(ltr bool) float64 {
	if ltr {
		return 1
	}
	return -1
}

// legend explains the links in words below y.
func (f *svgFig) legend(y float64) float64 {
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
			y += 18
			f.body.text(margin, y, fsDetail, s, "fill", accent)
			f.grow(margin+textW(s, fsDetail), y)
		}
		y += 10
	}
	return y
}

// chain draws a program without queues: its stations left to right in the
// order sessions reach them.
func (f *svgFig) chain(y float64) float64 {
	s := f.s
	h := elemH
	for i := range s.chain {
		if s.chain[i].title != "" {
			h = math.Max(h, boxHeight(&s.chain[i]))
		}
	}
	top := y + 24
	cy := top + h/2
	x := margin
	aw := math.Max(textW(s.arrivals, fsDetail)+16, 80)
	f.body.text(x, cy-8, fsDetail, s.arrivals, "fill", dim)
	for _, b := range s.chain {
		f.body.arrow("M"+ff(x)+" "+ff(cy)+" H"+ff(x+aw-2), dim, "arrow")
		x += aw
		aw = 56
		if b.title == "" && len(b.elems) == 1 {
			r := rect{x, cy - elemH/2, elemW(b.elems[0]), elemH}
			f.elem(b.elems[0], r)
			x = r.right()
			continue
		}
		bw := f.colWidth(&column{boxes: []box{b}})
		bh := boxHeight(&b)
		f.box(&b, rect{x, cy - bh/2, bw, bh}, false)
		x += bw
	}
	f.grow(x, top+h)
	return top + h + 8
}

// others draws the stages and pools no box holds, in a row below y.
func (f *svgFig) others(y float64) float64 {
	if len(f.s.others) == 0 {
		return y
	}
	y += 16
	f.body.text(margin, y+4, fsDetail, "also:", "fill", dim)
	x := margin + textW("also: ", fsDetail)
	for _, e := range f.s.others {
		e.head = strings.TrimSpace(e.head)
		r := rect{x, y - 14, elemW(e), elemH}
		f.elem(e, r)
		x = r.right() + 12
	}
	return y - 14 + elemH
}
