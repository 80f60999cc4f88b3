package spell

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"caption", "focus", "follow", "at", "event"}
	for _, tt := range []struct{ in, want string }{
		{"captoin", "caption"}, // two edits
		{"folow", "follow"},
		{"focs", "focus"},
		{"ta", ""},         // two edits is too far for a short name
		{"a", "at"},        // one edit
		{"caption", ""},    // itself is no suggestion
		{"speedy", ""},     // nothing near
		{"évent", "event"}, // characters, not bytes
	} {
		if got := Nearest(tt.in, names); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance(kitten, sitting) = %d, want 3", d)
	}
}
