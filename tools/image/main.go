// Command image builds Guichet's container image without a Docker daemon
// (issue 33): one layer FROM scratch holding the static binary, a passwd and
// group file with the non-root user guichet (65532), Debian's CA bundle, an
// empty /data owned by that user (the only writable path besides /tmp) and
// an SPDX SBOM made from the binary's build information. `make image` runs
//
//	image build --binary B --certs C ... --out dist/guichet-image.tar
//
// which writes an OCI image layout as a tar ("oci-archive": docker load
// since Docker 25, podman load, skopeo copy oci-archive:..., crane push
// after untarring) and the SBOM beside it. Every timestamp is
// --epoch (SOURCE_DATE_EPOCH, the commit's time) and every file list is
// sorted, so one commit always gives the same digest.
//
//	image rootfs --binary B ... --out DIR
//
// writes the same files into DIR (and /data into DIR-guichet), for the
// Dockerfile, which copies them into its own FROM scratch stage;
// imageConfig and the Dockerfile say the same things, which test/deploy
// checks.
package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed facts, also written in the Dockerfile.
const (
	uid      = 65532
	user     = "guichet"
	sbomPath = "usr/share/doc/guichet/sbom.spdx.json"
)

// options are the command line's.
type options struct {
	binary, certs, certsVersion string
	npmLock                     string
	version, revision, source   string
	epoch                       int64
	out, sbomOut                string
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 || (args[0] != "build" && args[0] != "rootfs") {
		return errors.New("usage: image build|rootfs --binary B --certs C --version V --revision R --source URL --epoch S --out PATH [--sbom PATH]")
	}
	cmd := args[0]
	var o options
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.StringVar(&o.binary, "binary", "", "the static guichet binary (CGO_ENABLED=0)")
	fs.StringVar(&o.certs, "certs", "/etc/ssl/certs/ca-certificates.crt", "the CA bundle")
	fs.StringVar(&o.certsVersion, "certs-version", "", "the Debian ca-certificates package version, for the SBOM")
	fs.StringVar(&o.npmLock, "npm-lock", "", "the SPA's package-lock.json: its packages the binary embeds, for the SBOM")
	fs.StringVar(&o.version, "version", "", "org.opencontainers.image.version")
	fs.StringVar(&o.revision, "revision", "", "org.opencontainers.image.revision (the commit)")
	fs.StringVar(&o.source, "source", "", "org.opencontainers.image.source (the repository's URL)")
	fs.Int64Var(&o.epoch, "epoch", -1, "SOURCE_DATE_EPOCH: every timestamp of the image")
	fs.StringVar(&o.out, "out", "", "build: the tarball to write; rootfs: the directory to fill")
	fs.StringVar(&o.sbomOut, "sbom", "", "build: where to write the SBOM as well")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	for name, v := range map[string]string{"binary": o.binary, "version": o.version, "revision": o.revision, "source": o.source, "out": o.out} {
		if v == "" {
			return fmt.Errorf("--%s is required", name)
		}
	}
	if o.epoch < 0 {
		return errors.New("--epoch is required (SOURCE_DATE_EPOCH)")
	}
	sbom, err := makeSBOM(o)
	if err != nil {
		return err
	}
	certs, err := os.ReadFile(o.certs)
	if err != nil {
		return err
	}
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return err
	}
	if cmd == "rootfs" {
		return writeRootfs(o.out, entries(bin, certs, sbom))
	}
	info, err := buildinfo.ReadFile(o.binary)
	if err != nil {
		return err
	}
	platform := v1.Platform{OS: setting(info, "GOOS"), Architecture: setting(info, "GOARCH")}
	if err := build(o, platform, bin, certs, sbom); err != nil {
		return err
	}
	if o.sbomOut != "" {
		return os.WriteFile(o.sbomOut, sbom, 0o644)
	}
	return nil
}

// passwd and group: root and the user the image runs as, neither with a
// shell (there is none).
var (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\n" + user + ":x:" + strconv.Itoa(uid) + ":" + strconv.Itoa(uid) + ":" + user + ":/data:/sbin/nologin\n"
	group  = "root:x:0:\n" + user + ":x:" + strconv.Itoa(uid) + ":\n"
)

// entry is one file or directory of the layer.
type entry struct {
	name     string // without a leading slash; a directory ends with /
	mode     int64
	owner    int
	contents []byte
}

// entries is the layer's contents, parents before children.
func entries(bin, certs, sbom []byte) []entry {
	dir := func(name string, mode int64, owner int) entry { return entry{name: name, mode: mode, owner: owner} }
	file := func(name string, mode int64, b []byte) entry { return entry{name: name, mode: mode, contents: b} }
	return []entry{
		dir("data/", 0o700, uid),
		dir("etc/", 0o755, 0),
		file("etc/group", 0o644, []byte(group)),
		file("etc/passwd", 0o644, []byte(passwd)),
		dir("etc/ssl/", 0o755, 0),
		dir("etc/ssl/certs/", 0o755, 0),
		file("etc/ssl/certs/ca-certificates.crt", 0o644, certs),
		file("guichet", 0o755, bin),
		dir("tmp/", 0o1777, 0),
		dir("usr/", 0o755, 0),
		dir("usr/share/", 0o755, 0),
		dir("usr/share/doc/", 0o755, 0),
		dir("usr/share/doc/guichet/", 0o755, 0),
		file(sbomPath, 0o644, sbom),
	}
}

// layerTar is the layer as an uncompressed tar, every header dated epoch.
func layerTar(es []entry, epoch time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.owner, Gid: e.owner, ModTime: epoch, Format: tar.FormatPAX}
		if e.owner == uid {
			h.Uname, h.Gname = user, user
		} else {
			h.Uname, h.Gname = "root", "root"
		}
		if strings.HasSuffix(e.name, "/") {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.contents))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.contents); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// imageConfig is what the image runs; the Dockerfile says the same.
func imageConfig(o options, created time.Time) v1.Config {
	return v1.Config{
		User:       strconv.Itoa(uid) + ":" + strconv.Itoa(uid),
		Entrypoint: []string{"/guichet"},
		Cmd:        []string{"serve"},
		WorkingDir: "/data",
		Env: []string{
			"GUICHET_ADDR=:8080",
			"GUICHET_ADMIN_ADDR=:9090",
			"GUICHET_DATA_DIR=/data",
		},
		ExposedPorts: map[string]struct{}{"8080/tcp": {}, "9090/tcp": {}},
		Volumes:      map[string]struct{}{"/data": {}},
		StopSignal:   "SIGTERM",
		Labels: map[string]string{
			"org.opencontainers.image.title":       "guichet",
			"org.opencontainers.image.description": "Guichet, the customer account portal: one static binary serving the SPA and its API",
			"org.opencontainers.image.licenses":    "Apache-2.0",
			"org.opencontainers.image.source":      o.source,
			"org.opencontainers.image.version":     o.version,
			"org.opencontainers.image.revision":    o.revision,
			"org.opencontainers.image.created":     created.Format(time.RFC3339),
		},
	}
}

// setting is one of the binary's build settings ("" when absent).
func setting(info *buildinfo.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// build writes the image for platform (the binary's GOOS and GOARCH).
func build(o options, platform v1.Platform, bin, certs, sbom []byte) error {
	created := time.Unix(o.epoch, 0).UTC()
	raw, err := layerTar(entries(bin, certs, sbom), created)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: created}, CreatedBy: "tools/image build (make image)", Comment: "guichet " + o.version,
	}})
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = platform.Architecture, platform.OS
	cf.Created = v1.Time{Time: created}
	cf.Config = imageConfig(o, created)
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "guichet-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	tag := strings.NewReplacer("+", "-", "/", "-").Replace(o.version)
	if err := p.AppendImage(img, layout.WithPlatform(platform),
		layout.WithAnnotations(map[string]string{
			"org.opencontainers.image.ref.name": tag,
			"io.containerd.image.name":          "docker.io/library/guichet:" + tag,
		})); err != nil {
		return err
	}
	return tarDir(dir, o.out, created)
}

// tarDir writes the layout directory as a tar: sorted names, root-owned,
// every entry dated epoch.
func tarDir(dir, out string, epoch time.Time) error {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if d.IsDir() {
			rel += "/"
		}
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	tw := tar.NewWriter(f)
	for _, name := range names {
		h := &tar.Header{Name: name, ModTime: epoch, Format: tar.FormatPAX, Mode: 0o644, Typeflag: tar.TypeReg}
		var b []byte
		if strings.HasSuffix(name, "/") {
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		} else if b, err = os.ReadFile(filepath.Join(dir, name)); err != nil {
			return err
		}
		h.Size = int64(len(b))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// writeRootfs writes the layer's entries as files under dir, with their
// modes, for the Dockerfile: root's under dir, the user's (/data) under
// dir+"-guichet", which the Dockerfile copies with --chown=65532:65532.
func writeRootfs(dir string, es []entry) error {
	for _, e := range es {
		base := dir
		if e.owner == uid {
			base = dir + "-" + user
		}
		path := filepath.Join(base, filepath.FromSlash(strings.TrimSuffix(e.name, "/")))
		mode := fs.FileMode(e.mode).Perm()
		if e.mode&0o1000 != 0 {
			mode |= fs.ModeSticky
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if strings.HasSuffix(e.name, "/") {
			if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		} else if err := os.WriteFile(path, e.contents, 0o600); err != nil {
			return err
		}
		if err := os.Chmod(path, mode); err != nil {
			return err
		}
	}
	return nil
}

// SPDX 2.3 JSON, the fields this SBOM uses.
type (
	spdxDoc struct {
		SPDXVersion       string             `json:"spdxVersion"`
		DataLicense       string             `json:"dataLicense"`
		SPDXID            string             `json:"SPDXID"`
		Name              string             `json:"name"`
		DocumentNamespace string             `json:"documentNamespace"`
		CreationInfo      spdxCreation       `json:"creationInfo"`
		Packages          []spdxPackage      `json:"packages"`
		Relationships     []spdxRelationship `json:"relationships"`
	}
	spdxCreation struct {
		Created  string   `json:"created"`
		Creators []string `json:"creators"`
	}
	spdxPackage struct {
		Name             string         `json:"name"`
		SPDXID           string         `json:"SPDXID"`
		VersionInfo      string         `json:"versionInfo"`
		Supplier         string         `json:"supplier,omitempty"`
		DownloadLocation string         `json:"downloadLocation"`
		FilesAnalyzed    bool           `json:"filesAnalyzed"`
		Checksums        []spdxChecksum `json:"checksums,omitempty"`
		LicenseConcluded string         `json:"licenseConcluded"`
		LicenseDeclared  string         `json:"licenseDeclared"`
		CopyrightText    string         `json:"copyrightText"`
		Comment          string         `json:"comment,omitempty"`
		ExternalRefs     []spdxRef      `json:"externalRefs,omitempty"`
	}
	spdxChecksum struct {
		Algorithm     string `json:"algorithm"`
		ChecksumValue string `json:"checksumValue"`
	}
	spdxRef struct {
		ReferenceCategory string `json:"referenceCategory"`
		ReferenceType     string `json:"referenceType"`
		ReferenceLocator  string `json:"referenceLocator"`
	}
	spdxRelationship struct {
		Element string `json:"spdxElementId"`
		Type    string `json:"relationshipType"`
		Related string `json:"relatedSpdxElement"`
	}
)

// makeSBOM describes the image's software: the guichet binary (its
// checksum and build settings), every Go module its build information lists
// (what `go version -m` prints), the Go standard library of its toolchain,
// the npm packages of the SPA the binary embeds, and the CA bundle.
func makeSBOM(o options) ([]byte, error) {
	info, err := buildinfo.ReadFile(o.binary)
	if err != nil {
		return nil, fmt.Errorf("%s: no Go build information: %w", o.binary, err)
	}
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return nil, err
	}
	var settings []string
	for _, s := range info.Settings {
		settings = append(settings, s.Key+"="+s.Value)
	}
	if setting(info, "CGO_ENABLED") != "0" || setting(info, "GOOS") != "linux" {
		return nil, fmt.Errorf("%s is not a static Linux binary: the image has no libc (build it with CGO_ENABLED=0 GOOS=linux)", o.binary)
	}
	id := func(kind, name string) string {
		return "SPDXRef-" + kind + "-" + strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
				return r
			}
			return '-'
		}, name)
	}
	golang := func(path, version string) spdxPackage {
		return spdxPackage{
			Name: path, SPDXID: id("go", path+"-"+version), VersionInfo: version,
			DownloadLocation: "NOASSERTION", LicenseConcluded: "NOASSERTION", LicenseDeclared: "NOASSERTION", CopyrightText: "NOASSERTION",
			ExternalRefs: []spdxRef{{"PACKAGE-MANAGER", "purl", "pkg:golang/" + path + "@" + version}},
		}
	}
	sum := sha256.Sum256(bin)
	main := spdxPackage{
		Name: "guichet", SPDXID: "SPDXRef-Package-guichet", VersionInfo: o.version,
		DownloadLocation: o.source, LicenseConcluded: "Apache-2.0", LicenseDeclared: "Apache-2.0", CopyrightText: "NOASSERTION",
		Checksums: []spdxChecksum{{"SHA256", hex.EncodeToString(sum[:])}},
		Comment:   "/guichet, Go module " + info.Main.Path + " at revision " + o.revision + "; build settings: " + strings.Join(settings, " "),
	}
	doc := spdxDoc{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT",
		Name:              "guichet-image-" + o.version,
		DocumentNamespace: strings.TrimSuffix(o.source, "/") + "/spdx/guichet-image/" + o.revision,
		CreationInfo:      spdxCreation{Created: time.Unix(o.epoch, 0).UTC().Format(time.RFC3339), Creators: []string{"Tool: guichet tools/image"}},
		Packages:          []spdxPackage{main},
		Relationships:     []spdxRelationship{{"SPDXRef-DOCUMENT", "DESCRIBES", main.SPDXID}},
	}
	stdlib := golang("stdlib", info.GoVersion)
	deps := []spdxPackage{stdlib}
	for _, d := range info.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		deps = append(deps, golang(d.Path, d.Version))
	}
	if o.certsVersion != "" {
		certs, err := os.ReadFile(o.certs)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(certs)
		deps = append(deps, spdxPackage{
			Name: "ca-certificates", SPDXID: "SPDXRef-deb-ca-certificates", VersionInfo: o.certsVersion, Supplier: "Organization: Debian",
			DownloadLocation: "NOASSERTION", LicenseConcluded: "NOASSERTION", LicenseDeclared: "GPL-2.0-or-later AND MPL-2.0", CopyrightText: "NOASSERTION",
			Checksums:    []spdxChecksum{{"SHA256", hex.EncodeToString(sum[:])}},
			Comment:      "/etc/ssl/certs/ca-certificates.crt",
			ExternalRefs: []spdxRef{{"PACKAGE-MANAGER", "purl", "pkg:deb/debian/ca-certificates@" + o.certsVersion}},
		})
	}
	if o.npmLock != "" {
		spa, err := npmPackages(o.npmLock, id)
		if err != nil {
			return nil, err
		}
		deps = append(deps, spa...)
	}
	for _, d := range deps {
		doc.Packages = append(doc.Packages, d)
		doc.Relationships = append(doc.Relationships, spdxRelationship{main.SPDXID, "DEPENDS_ON", d.SPDXID})
	}
	return json.MarshalIndent(doc, "", "  ")
}

// npmPackages are the packages of an npm lock file that ship in the SPA's
// bundle: every installed package not marked dev (or devOptional), in the
// lock's order of names, with its version, declared license and purl.
func npmPackages(lockFile string, id func(kind, name string) string) ([]spdxPackage, error) {
	raw, err := os.ReadFile(lockFile)
	if err != nil {
		return nil, err
	}
	var lock struct {
		Packages map[string]struct {
			Version     string `json:"version"`
			License     string `json:"license"`
			Dev         bool   `json:"dev"`
			DevOptional bool   `json:"devOptional"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(raw, &lock); err != nil {
		return nil, fmt.Errorf("%s: %w", lockFile, err)
	}
	// A package nested under another's node_modules is one too (another
	// version); the same name and version twice is one package.
	type pkg struct{ name, version, license string }
	seen := map[string]pkg{}
	for key, p := range lock.Packages {
		i := strings.LastIndex(key, "node_modules/")
		if i < 0 || p.Dev || p.DevOptional {
			continue
		}
		name := key[i+len("node_modules/"):]
		seen[name+"@"+p.Version] = pkg{name, p.Version, p.License}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("%s: no package that ships (a lock file of npm 7 or later lists them under packages)", lockFile)
	}
	keys := slices.Sorted(maps.Keys(seen))
	var out []spdxPackage
	for _, k := range keys {
		p := seen[k]
		name := p.name
		license := p.license
		if license == "" {
			license = "NOASSERTION"
		}
		out = append(out, spdxPackage{
			Name: name, SPDXID: id("npm", name+"-"+p.version), VersionInfo: p.version,
			DownloadLocation: "NOASSERTION", LicenseConcluded: "NOASSERTION", LicenseDeclared: license, CopyrightText: "NOASSERTION",
			Comment:      "in the SPA the binary embeds (web/dist)",
			ExternalRefs: []spdxRef{{"PACKAGE-MANAGER", "purl", "pkg:npm/" + strings.Replace(name, "@", "%40", 1) + "@" + p.version}},
		})
	}
	return out, nil
}
