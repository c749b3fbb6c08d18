package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The blocklist is generated, not downloaded: the roots people build
// passwords from (common words, pet and first names, places, teams, brand and
// site names, English and French), keyboard walks and digit runs, each with
// the endings they add to satisfy composition rules. Entries are lower case
// because the check ignores case. The roots are data, in
// testdata/blocklist-roots.txt (blocklistRoots reads them); the endings and
// the spellings are here.

// blocklistRoots reads testdata/blocklist-roots.txt: its lists by name
// ("classic", "local", "names", "walks"), each in the file's order.
func blocklistRoots(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "blocklist-roots.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]string{}
	name := ""
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			name = line[1 : len(line)-1]
		case name == "":
			t.Fatalf("blocklist-roots.txt: %q before any [list]", line)
		default:
			lists[name] = append(lists[name], strings.Fields(line)...)
		}
	}
	return lists
}

var blocklistEndings = []string{
	"", "1", "12", "123", "1234", "12345", "!", "1!", "12!", "123!", "1234!", "@1", "@123",
	"#1", "01", "2023", "2024", "2025", "2026", "2024!", "2025!", "2026!",
}

// blocklistLeet spells a root the way people dodge dictionary checks.
var blocklistLeet = strings.NewReplacer("a", "@", "o", "0", "e", "3", "i", "1", "s", "$")

func generateBlocklist(t *testing.T) []string {
	roots := blocklistRoots(t)
	classic, local, names, walks := roots["classic"], roots["local"], roots["names"], roots["walks"]
	if len(classic) < 40 || len(local) < 60 || len(names) == 0 || len(walks) == 0 {
		t.Fatalf("blocklist-roots.txt: lists of %d classic, %d local, %d names, %d walks", len(classic), len(local), len(names), len(walks))
	}
	var out []string
	add := func(s string) {
		if n := len(s); n >= PasswordMinLength && n <= PasswordMaxLength {
			out = append(out, s)
		}
	}
	for _, root := range slices.Concat(classic, local, names, walks) {
		for _, ending := range blocklistEndings {
			add(root + ending)
		}
	}
	for _, root := range slices.Concat(classic[:40], local[:60]) {
		leet := blocklistLeet.Replace(root)
		for _, ending := range blocklistEndings {
			add(leet + ending)
		}
		add(root + root)
	}
	for _, name := range names {
		for year := 1970; year <= 2005; year += 5 {
			add(name + strconv.Itoa(year))
		}
	}
	for d := '0'; d <= '9'; d++ {
		for n := PasswordMinLength; n <= 16; n++ {
			add(strings.Repeat(string(d), n))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestBlocklistFile checks blocklist.txt against the generator and the limits
// of the brief: at least 10,000 entries, at most 200 KB.
func TestBlocklistFile(t *testing.T) {
	want := strings.Join(generateBlocklist(t), "\n") + "\n"
	if *update {
		if err := os.WriteFile("blocklist.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		blocklistText = want
	}
	if blocklistText != want {
		t.Fatal("blocklist.txt differs from generateBlocklist; run go test ./internal/rules -run TestBlocklistFile -update")
	}
	if n := len(blocklist()); n < 10_000 {
		t.Errorf("blocklist has %d entries, want at least 10000", n)
	}
	if n := len(blocklistText); n > 200*1024 {
		t.Errorf("blocklist.txt is %d bytes, want at most 200 KB", n)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(blocklistText), "\n") {
		if line != lowerASCII(line) || line != NormalizePassword(line) || len(line) < PasswordMinLength {
			t.Errorf("blocklist entry %q: not lower case, normalized and at least 10 long", line)
		}
	}
}

func TestCommonPassword(t *testing.T) {
	tests := []struct {
		password string
		want     bool
	}{
		{"Password1!", true},
		{"PASSWORD1!", true},
		{"Summer2024!", true},
		{"Welcome123!", true},
		{"P@ssw0rd123", true},
		{"Montreal2025!", true},
		{"Motdepasse1!", true},
		{"Belairdirect1", true},
		{"1234567890", true},
		{"Jennifer1985", true},
		{"Tr0ub4dor&3x", false},
		{"correct horse battery staple", false},
	}
	for _, tt := range tests {
		if got := commonPassword(tt.password); got != tt.want {
			t.Errorf("commonPassword(%q) = %v, want %v", tt.password, got, tt.want)
		}
	}
}
