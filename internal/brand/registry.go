package brand

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxFileSize bounds a brand file; real ones are a few kilobytes.
const maxFileSize = 1 << 20

// maxImageSize bounds a promo image; the sample ones are under 8 KB.
const maxImageSize = 256 << 10

// DevDefaultID is the brand plain localhost (and 127.0.0.1, ::1) serves in
// dev mode (design.md "--dev"); without it, the first brand by id does.
const DevDefaultID = "belair"

// Problem is one error in the brand configuration.
type Problem struct {
	File    string // path of the brand file
	Field   string // path in the file, e.g. provinces[2].hours.weekdays.open; empty for the whole file
	Message string
}

func (p Problem) String() string {
	if p.Field == "" {
		return p.File + ": " + p.Message
	}
	return p.File + ": " + p.Field + ": " + p.Message
}

// LoadError lists every problem found by LoadDir, one per line.
type LoadError struct {
	Problems []Problem
}

func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Registry holds the loaded brands. It is safe for concurrent use once
// set up (SetDefault is set-up only).
type Registry struct {
	brands    []*Brand // sorted by ID
	byID      map[string]*Brand
	hosts     map[string]*Brand
	devHosts  map[string]*Brand
	defaultID string
	// images: the promo images read from the brands directory, by the path
	// they are served at (/brands/<id>/<file>).
	images map[string][]byte
}

// Option changes how LoadDir and LoadFS load.
type Option func(*options)

type options struct {
	assets fs.FS
	dir    string // LoadDir's directory, named in messages
}

// WithAssets gives the SPA's built files (web.Dist()): a promo image that is
// not in the brands directory (<id>/<file> beside the brand files) must be
// there, at brands/<id>/<file> (web/public/brands/<id>/ in the source).
// Without it, such an image is not looked for (tests of other packages).
func WithAssets(fsys fs.FS) Option {
	return func(o *options) { o.assets = fsys }
}

// LoadDir loads and validates every *.yaml file of dir. Decoding is strict;
// on failure the error is a *LoadError naming file, field and problem for
// everything wrong, not just the first.
// A promo image is read from dir/<id>/<file> when there (see WithAssets).
func LoadDir(dir string, opts ...Option) (*Registry, error) {
	if _, err := os.ReadDir(dir); err != nil { // the error names dir, not "."
		return nil, fmt.Errorf("brand: %w", err)
	}
	opts = append(opts, func(o *options) { o.dir = dir })
	return load(os.DirFS(dir), dir, func(name string) string { return filepath.Join(dir, name) }, opts)
}

// LoadFS is LoadDir for the *.yaml files at the root of fsys (the sample
// brands embedded in the binary: guichet/config); label names the source
// in messages and Brand.File ("label/name.yaml").
func LoadFS(fsys fs.FS, label string, opts ...Option) (*Registry, error) {
	return load(fsys, label, func(name string) string { return label + "/" + name }, opts)
}

// load is the one validation path of LoadDir and LoadFS; pathOf gives the
// name a file is reported under.
func load(fsys fs.FS, label string, pathOf func(name string) string, opts []Option) (*Registry, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("brand: %s: %w", label, err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			files = append(files, e.Name())
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("brand: %s holds no brand file (*.yaml)", label)
	}

	var all []Problem
	var decoded []*Brand // every brand that decoded, valid or not, for cross checks
	images := map[string][]byte{}
	for _, name := range files {
		path := pathOf(name)
		b, ps := loadFile(fsys, name, path, strings.TrimSuffix(name, ".yaml"))
		if b != nil && b.Promo != nil {
			ps = append(ps, loadImages(b, fsys, label, o, images, ps)...)
		}
		for _, p := range ps {
			all = append(all, Problem{File: path, Field: p.field, Message: p.message})
		}
		if b != nil {
			decoded = append(decoded, b)
		}
	}
	all = append(all, crossCheck(decoded)...)
	if len(all) > 0 {
		return nil, &LoadError{Problems: all}
	}

	r := &Registry{
		brands:   decoded,
		byID:     map[string]*Brand{},
		hosts:    map[string]*Brand{},
		devHosts: map[string]*Brand{},
		images:   images,
	}
	slices.SortFunc(r.brands, func(a, b *Brand) int { return strings.Compare(a.ID, b.ID) })
	for _, b := range r.brands {
		r.byID[b.ID] = b
		for _, h := range b.Hosts {
			r.hosts[h] = b
		}
		for _, h := range b.DevHosts {
			r.devHosts[h] = b
		}
		if b.PolicyNumber.ByProvince == nil {
			b.PolicyNumber.ByProvince = map[string]PolicyNumberFormat{}
		}
		if b.DriverLicenceMasks == nil {
			b.DriverLicenceMasks = map[string]string{}
		}
	}
	return r, nil
}

// loadFile returns the decoded brand (nil if it did not decode, even in
// part) and its problems; name is the file in fsys, path what it is called.
func loadFile(fsys fs.FS, name, path, stem string) (*Brand, problems) {
	var ps problems
	info, err := fs.Stat(fsys, name)
	if err != nil {
		ps.add("", "%v", err)
		return nil, ps
	}
	if info.Size() > maxFileSize {
		ps.add("", "the file is larger than %d bytes", maxFileSize)
		return nil, ps
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		ps.add("", "%v", err)
		return nil, ps
	}
	b := &Brand{file: path}
	ps, filled := decodeStrict(data, b)
	if !filled {
		return nil, ps
	}
	// Validate what did decode too, so one run reports everything; a field
	// the decoder already complained about is not reported twice.
	decodeProblems := ps
	for _, v := range validate(b, stem) {
		if !coveredBy(v.field, decodeProblems) {
			ps = append(ps, v)
		}
	}
	return b, ps
}

// loadImages finds the promo images of b: in the brands directory
// (<id>/<file>, read into images to be served) or in the SPA's assets
// (brands/<id>/<file>). known are the problems found so far: an image name
// already reported is not looked for.
func loadImages(b *Brand, fsys fs.FS, label string, o options, images map[string][]byte, known problems) problems {
	var ps problems
	looked := map[string]bool{} // both languages often show the same file
	for _, lang := range knownLanguages {
		field := "promo." + lang + ".image"
		file := b.Promo.For(lang).Image
		if coveredBy(field, known) || looked[file] {
			continue
		}
		looked[file] = true
		own := b.ID + "/" + file
		served := "/brands/" + own
		if info, err := fs.Stat(fsys, own); err == nil {
			switch data, err := fs.ReadFile(fsys, own); {
			case info.Size() > maxImageSize:
				ps.add(field, "%s/%s is larger than %d KB", label, own, maxImageSize>>10)
			case err != nil:
				ps.add(field, "%v", err)
			default:
				images[served] = data
			}
			continue
		}
		if o.assets == nil {
			continue
		}
		info, err := fs.Stat(o.assets, "brands/"+own)
		switch {
		case err != nil && o.dir != "":
			ps.add(field, "image %q not found: put it in %s, or in web/public/brands/%s/ and rebuild (make build)", file, filepath.Join(o.dir, b.ID, file), b.ID)
		case err != nil:
			ps.add(field, "image %q not found in web/public/brands/%s/ (built into the binary: make build)", file, b.ID)
		case info.Size() > maxImageSize:
			ps.add(field, "web/public/brands/%s is larger than %d KB", own, maxImageSize>>10)
		}
	}
	return ps
}

// Image returns a promo image read from the brands directory, by the path
// it is served at (/brands/<id>/<file>); false for any other path.
func (r *Registry) Image(path string) ([]byte, bool) {
	data, ok := r.images[path]
	return data, ok
}

// coveredBy reports whether field is, or is inside, a field with a problem.
func coveredBy(field string, ps problems) bool {
	for _, p := range ps {
		if field == p.field || strings.HasPrefix(field, p.field+".") || strings.HasPrefix(field, p.field+"[") {
			return true
		}
	}
	return false
}

// crossCheck finds what no single file can: host names and api keys used by
// two brands, and the screen-share link on more than one brand.
func crossCheck(brands []*Brand) []Problem {
	var all []Problem
	hostOwner := map[string]*Brand{}
	keyOwner := map[string]*Brand{}
	var screenShare *Brand
	for _, b := range brands {
		for _, list := range []struct {
			name  string
			hosts []string
		}{{"hosts", b.Hosts}, {"devHosts", b.DevHosts}} {
			for i, h := range list.hosts {
				if o, ok := hostOwner[h]; ok && o != b {
					all = append(all, Problem{b.file, fmt.Sprintf("%s[%d]", list.name, i),
						fmt.Sprintf("%q is already used by brand %q (%s)", h, o.ID, o.file)})
					continue
				}
				hostOwner[h] = b
			}
		}
		if o, ok := keyOwner[b.APIKey]; ok && b.APIKey != "" {
			all = append(all, Problem{b.file, "apiKey", fmt.Sprintf("is the same as brand %q's (%s)", o.ID, o.file)})
		} else {
			keyOwner[b.APIKey] = b
		}
		if b.ScreenShare {
			if screenShare != nil {
				all = append(all, Problem{b.file, "screenShare", fmt.Sprintf("brand %q (%s) already shows the screen-share link; only one brand may", screenShare.ID, screenShare.file)})
			} else {
				screenShare = b
			}
		}
	}
	return all
}

// All returns the brands sorted by ID.
func (r *Registry) All() []*Brand { return slices.Clone(r.brands) }

// ByID returns the brand with this ID.
func (r *Registry) ByID(id string) (*Brand, bool) {
	b, ok := r.byID[id]
	return b, ok
}

// ByHost returns the brand serving a Host header value. The host may carry a
// port, be in any case and end with a dot. With dev, the brands' devHosts
// match too, and plain localhost, 127.0.0.1 and ::1 give DevDefaultID (or,
// when the brands directory has no such brand, the first brand by id).
// Unknown or malformed hosts give false; see Default for a fallback.
func (r *Registry) ByHost(host string, dev bool) (*Brand, bool) {
	h, ok := normalizeHost(host)
	if !ok {
		return nil, false
	}
	if b, ok := r.hosts[h]; ok {
		return b, true
	}
	if !dev {
		return nil, false
	}
	if b, ok := r.devHosts[h]; ok {
		return b, true
	}
	switch h {
	case "localhost", "127.0.0.1", "::1":
		if b, ok := r.ByID(DevDefaultID); ok {
			return b, true
		}
		return r.brands[0], true
	}
	return nil, false
}

// SetDefault names the brand to serve for hosts ByHost does not know (none
// until set). Call it while setting up, before serving.
func (r *Registry) SetDefault(id string) error {
	if _, ok := r.byID[id]; !ok {
		return fmt.Errorf("brand: default brand %q is not configured", id)
	}
	r.defaultID = id
	return nil
}

// Default returns the brand set with SetDefault; false when none is set.
func (r *Registry) Default() (*Brand, bool) {
	if r.defaultID == "" {
		return nil, false
	}
	return r.ByID(r.defaultID)
}

// normalizeHost turns a Host header value into a bare lower-case host name or
// IP address; false when it is malformed.
func normalizeHost(host string) (string, bool) {
	if host == "" || len(host) > 300 {
		return "", false
	}
	name := host
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 || !validPort(host[end+1:], true) {
			return "", false
		}
		name = host[1:end]
		if ip := net.ParseIP(name); ip == nil || ip.To4() != nil {
			return "", false
		}
		return strings.ToLower(name), true
	}
	switch strings.Count(host, ":") {
	case 0:
	case 1:
		var port string
		name, port, _ = strings.Cut(host, ":")
		if !validPort(":"+port, false) {
			return "", false
		}
	default:
		return "", false // an IPv6 address must be bracketed
	}
	name = strings.TrimSuffix(asciiLower(name), ".")
	if net.ParseIP(name) != nil {
		return name, true
	}
	if !validHostname(name) {
		return "", false
	}
	return name, true
}

// validPort accepts ":" followed by 1 to 5 digits, or (when optional) "".
func validPort(s string, optional bool) bool {
	if s == "" {
		return optional
	}
	if len(s) < 2 || len(s) > 6 || s[0] != ':' {
		return false
	}
	for _, c := range []byte(s[1:]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
