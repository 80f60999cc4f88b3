package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the TUI's key bindings. Every key the model reacts to is here,
// matched with [key.Matches], so the help view and the behaviour cannot
// drift apart.
type KeyMap struct {
	Run        key.Binding // run / pause
	Step       key.Binding // one event
	Slice      key.Binding // one time slice
	Slices     key.Binding // ten time slices
	Back       key.Binding // one event back
	Shrink     key.Binding // halve the slice
	Grow       key.Binding // double the slice
	Faster     key.Binding // double the speed
	Slower     key.Binding // halve the speed
	ResetSpeed key.Binding
	Restart    key.Binding
	Panes      key.Binding // 1…5 toggle a pane
	Deploy     key.Binding // 6 toggles the deployment figure
	Focus      key.Binding
	FocusBack  key.Binding
	Up         key.Binding // scroll the focused pane
	Down       key.Binding
	Inspect    key.Binding // 7, 8 toggle the why and session panes
	Command    key.Binding // : the command line
	Goto       key.Binding // g: the command line with goto
	Filter     key.Binding // / filters the log
	Reverse    key.Binding // B: back to the last breakpoint
	Follow     key.Binding // f follows the selected session
	Why        key.Binding // enter: why the selected session waits
	Tail       key.Binding // G: the log's tail
	Report     key.Binding // R: the report serq run prints
	NextStop   key.Binding // > the tour's next stop
	PrevStop   key.Binding // < its previous stop
	Mark       key.Binding // m + letter marks the moment
	Jump       key.Binding // ' + letter returns to it
	Inspector  key.Binding // i: the Inspect pane (a pool's queue, an engine's batch, the pending events)
	Zoom       key.Binding // z: the focused pane alone
	LogJump    key.Binding // enter in the log: the moment of the line under the cursor
	LogWhy     key.Binding // w in the log: why the line's session waits
	Sort       key.Binding // s in the Leases pane: the leases' order
	HLeft      key.Binding // { scrolls the focused pane's long lines left
	HRight     key.Binding // } and right (the log, the figure, the report)
	Cancel     key.Binding // esc: cancel the request under way
	Help       key.Binding
	Quit       key.Binding
}

// DefaultKeyMap returns the default bindings: space, n, →, +/-, digits
// for panes, tab, ? and q (the keys a first-time user tries).
func DefaultKeyMap() *KeyMap {
	return &KeyMap{
		Run:        key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "run/pause")),
		Step:       key.NewBinding(key.WithKeys("n", "."), key.WithHelp("n", "one event")),
		Slice:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "one slice")),
		Slices:     key.NewBinding(key.WithKeys("shift+right", "L"), key.WithHelp("L", "ten slices")),
		Back:       key.NewBinding(key.WithKeys("b", "left"), key.WithHelp("b/←", "one event back")),
		Shrink:     key.NewBinding(key.WithKeys("["), key.WithHelp("[", "halve slice")),
		Grow:       key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "double slice")),
		Faster:     key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster ×2")),
		Slower:     key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower ÷2")),
		ResetSpeed: key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "reset speed")),
		Restart:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "restart (seed)")),
		Panes:      key.NewBinding(key.WithKeys("1", "2", "3", "4", "5"), key.WithHelp("1-5", "toggle pane")),
		Deploy:     key.NewBinding(key.WithKeys("6"), key.WithHelp("6", "deployment")),
		Focus:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus next")),
		FocusBack:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "focus previous")),
		Up:         key.NewBinding(key.WithKeys("up", "k", "pgup"), key.WithHelp("↑/k", "scroll up")),
		Down:       key.NewBinding(key.WithKeys("down", "j", "pgdown"), key.WithHelp("↓/j", "scroll down")),
		Inspect:    key.NewBinding(key.WithKeys("7", "8"), key.WithHelp("7/8", "why/session")),
		Command:    key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command")),
		Goto:       key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "goto T or #N")),
		Filter:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter log")),
		Reverse:    key.NewBinding(key.WithKeys("B"), key.WithHelp("B", "back to a break")),
		Follow:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow selected")),
		Why:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "why it waits")),
		Tail:       key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", "log tail")),
		Report:     key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "report")),
		NextStop:   key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "next stop")),
		PrevStop:   key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "previous stop")),
		Mark:       key.NewBinding(key.WithKeys("m"), key.WithHelp("m a", "mark as a")),
		Jump:       key.NewBinding(key.WithKeys("'"), key.WithHelp("' a", "go to mark a")),
		Inspector:  key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "inspect pane")),
		Zoom:       key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "zoom pane")),
		LogJump:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("⏎ in log", "go to its time")),
		LogWhy:     key.NewBinding(key.WithKeys("w"), key.WithHelp("w in log", "why its session")),
		Sort:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s leases", "sort")),
		HLeft:      key.NewBinding(key.WithKeys("{"), key.WithHelp("{", "scroll left")),
		HRight:     key.NewBinding(key.WithKeys("}"), key.WithHelp("}", "scroll right")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel a seek")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the one-line help: the keys a first look needs.
func (k *KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Run, k.Step, k.Slice, k.Back, k.Command, k.Goto, k.Faster, k.Panes, k.Help, k.Quit}
}

// FullHelp is every key, grouped as the `?` help shows them: stepping,
// pace, the debugger, panes, the app. The model assembles that help from
// its own keys and its panes' (Model.fullHelp), in these groups.
func (k *KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Run, k.Step, k.Slice, k.Slices, k.Back, k.Reverse},
		{k.Shrink, k.Grow, k.Faster, k.Slower, k.ResetSpeed},
		{k.Command, k.Goto, k.Filter, k.Tail, k.Why, k.Follow, k.LogJump, k.LogWhy, k.Sort},
		{k.Panes, k.Deploy, k.Inspect, k.Inspector, k.Report, k.Zoom, k.Focus, k.FocusBack, k.Up, k.Down},
		{k.NextStop, k.PrevStop, k.Mark, k.Jump, k.Restart, k.Cancel, k.Help, k.Quit},
	}
}
