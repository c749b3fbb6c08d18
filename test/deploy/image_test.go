// Package deploy checks what operators run Guichet with (issue 33): the
// container image `make image` writes (dist/guichet-image.tar), the
// Dockerfile that builds the same image with Docker, and compose.yaml.
// The image is read with archive/tar and encoding/json only, as any tool
// would read an OCI image layout.
package deploy

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/x509"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// root is the repository, from this package's directory.
const root = "../.."

// imageTar is what `make image` writes.
var imageTar = filepath.Join(root, "dist", "guichet-image.tar")

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
	Platform    *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

// imageConfig is the part of the OCI image configuration the checks read.
type imageConfig struct {
	Architecture string    `json:"architecture"`
	OS           string    `json:"os"`
	Created      time.Time `json:"created"`
	Config       struct {
		User         string              `json:"User"`
		Entrypoint   []string            `json:"Entrypoint"`
		Cmd          []string            `json:"Cmd"`
		Env          []string            `json:"Env"`
		WorkingDir   string              `json:"WorkingDir"`
		ExposedPorts map[string]struct{} `json:"ExposedPorts"`
		Volumes      map[string]struct{} `json:"Volumes"`
		Labels       map[string]string   `json:"Labels"`
		StopSignal   string              `json:"StopSignal"`
	} `json:"config"`
	RootFS struct {
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

// imageFile is one entry of the image's file system.
type imageFile struct {
	hdr  *tar.Header
	data []byte
}

type image struct {
	raw    []byte // the tarball
	index  descriptor
	config imageConfig
	files  map[string]imageFile // by absolute path, directories without the trailing slash
}

var (
	loadOnce sync.Once
	loaded   *image
	loadErr  error
)

// loadImage reads dist/guichet-image.tar once. Without it the test skips,
// unless GUICHET_REQUIRE_IMAGE is set (make test-go sets it, after
// building the image).
func loadImage(t *testing.T) *image {
	t.Helper()
	if _, err := os.Stat(imageTar); errors.Is(err, fs.ErrNotExist) {
		if os.Getenv("GUICHET_REQUIRE_IMAGE") != "" {
			t.Fatalf("%s is missing and GUICHET_REQUIRE_IMAGE is set: make image", imageTar)
		}
		t.Skipf("%s is not built: `make image` builds it (make test does, and sets GUICHET_REQUIRE_IMAGE)", imageTar)
	}
	loadOnce.Do(func() { loaded, loadErr = readImage(imageTar) })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

func readImage(path string) (*image, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	entries := map[string][]byte{}
	if err := readTar(raw, func(h *tar.Header, b []byte) { entries[h.Name] = b }); err != nil {
		return nil, err
	}
	// blob reads a blob and checks it against its digest and size.
	blob := func(d descriptor) ([]byte, error) {
		b, ok := entries["blobs/sha256/"+strings.TrimPrefix(d.Digest, "sha256:")]
		if !ok {
			return nil, errors.New("no blob " + d.Digest)
		}
		sum := sha256.Sum256(b)
		if "sha256:"+hex.EncodeToString(sum[:]) != d.Digest || int64(len(b)) != d.Size {
			return nil, errors.New("blob " + d.Digest + " does not match its digest or size")
		}
		return b, nil
	}
	var layout struct {
		Version string `json:"imageLayoutVersion"`
	}
	if err := json.Unmarshal(entries["oci-layout"], &layout); err != nil || layout.Version != "1.0.0" {
		return nil, errors.New("oci-layout: not an OCI image layout 1.0.0")
	}
	var index struct {
		Manifests []descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(entries["index.json"], &index); err != nil {
		return nil, err
	}
	if len(index.Manifests) != 1 {
		return nil, errors.New("index.json: want one image")
	}
	img := &image{raw: raw, index: index.Manifests[0], files: map[string]imageFile{}}
	b, err := blob(img.index)
	if err != nil {
		return nil, err
	}
	var manifest struct {
		MediaType string       `json:"mediaType"`
		Config    descriptor   `json:"config"`
		Layers    []descriptor `json:"layers"`
	}
	if err := json.Unmarshal(b, &manifest); err != nil {
		return nil, err
	}
	if manifest.MediaType != "application/vnd.oci.image.manifest.v1+json" || manifest.Config.MediaType != "application/vnd.oci.image.config.v1+json" {
		return nil, errors.New("not an OCI image manifest: " + manifest.MediaType + ", config " + manifest.Config.MediaType)
	}
	if b, err = blob(manifest.Config); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &img.config); err != nil {
		return nil, err
	}
	if len(manifest.Layers) != len(img.config.RootFS.DiffIDs) {
		return nil, errors.New("manifest and config disagree on the layers")
	}
	for i, l := range manifest.Layers {
		b, err := blob(l)
		if err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		layer, err := io.ReadAll(zr)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(layer)
		if "sha256:"+hex.EncodeToString(sum[:]) != img.config.RootFS.DiffIDs[i] {
			return nil, errors.New("layer " + l.Digest + " does not match its diff id")
		}
		err = readTar(layer, func(h *tar.Header, b []byte) { img.files["/"+strings.TrimSuffix(h.Name, "/")] = imageFile{h, b} })
		if err != nil {
			return nil, err
		}
	}
	return img, nil
}

// readTar calls entry with each entry of a tar and its contents.
func readTar(b []byte, entry func(*tar.Header, []byte)) error {
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		entry(h, data)
	}
}

// TestImageConfig: the image runs /guichet serve as 65532, with the data
// directory /data, both listeners on every interface, and the OCI labels.
func TestImageConfig(t *testing.T) {
	img := loadImage(t)
	c := img.config.Config
	if c.User != "65532:65532" {
		t.Errorf("User = %q, want 65532:65532 (non-root)", c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{"/guichet"}) || !slices.Equal(c.Cmd, []string{"serve"}) {
		t.Errorf("Entrypoint %q Cmd %q, want [/guichet] [serve]", c.Entrypoint, c.Cmd)
	}
	if c.WorkingDir != "/data" || len(c.Volumes) != 1 || !hasKey(c.Volumes, "/data") {
		t.Errorf("WorkingDir %q Volumes %v, want /data and the one volume /data", c.WorkingDir, c.Volumes)
	}
	env := envMap(c.Env)
	if env["GUICHET_DATA_DIR"] != "/data" || env["GUICHET_ADDR"] != ":8080" || env["GUICHET_ADMIN_ADDR"] != ":9090" {
		t.Errorf("Env = %q: want GUICHET_DATA_DIR=/data, GUICHET_ADDR=:8080, GUICHET_ADMIN_ADDR=:9090", c.Env)
	}
	for _, p := range []string{"8080/tcp", "9090/tcp"} {
		if !hasKey(c.ExposedPorts, p) {
			t.Errorf("ExposedPorts %v lacks %s", c.ExposedPorts, p)
		}
	}
	if len(c.ExposedPorts) != 2 {
		t.Errorf("ExposedPorts = %v, want the two listeners", c.ExposedPorts)
	}
	if img.config.OS != "linux" || img.config.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s, want linux/%s (the binary's)", img.config.OS, img.config.Architecture, runtime.GOARCH)
	}
	l := c.Labels
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(l["org.opencontainers.image.revision"]) {
		t.Errorf("revision label %q, want a commit hash", l["org.opencontainers.image.revision"])
	}
	if !strings.HasPrefix(l["org.opencontainers.image.source"], "https://") {
		t.Errorf("source label %q, want the repository's URL", l["org.opencontainers.image.source"])
	}
	if l["org.opencontainers.image.version"] == "" || l["org.opencontainers.image.licenses"] != "Apache-2.0" || l["org.opencontainers.image.title"] != "guichet" {
		t.Errorf("labels %v: want version, licenses Apache-2.0 and title guichet", l)
	}
	created, err := time.Parse(time.RFC3339, l["org.opencontainers.image.created"])
	if err != nil || !created.Equal(img.config.Created) || created.IsZero() {
		t.Errorf("created label %q, config created %v: want the same instant (SOURCE_DATE_EPOCH)", l["org.opencontainers.image.created"], img.config.Created)
	}
	if ref := img.index.Annotations["org.opencontainers.image.ref.name"]; ref == "" {
		t.Errorf("index.json names no tag (org.opencontainers.image.ref.name): %v", img.index.Annotations)
	}
}

// TestImageFiles: the image holds the binary, passwd and group, the CA
// bundle, the SBOM and two directories, and nothing else: no shell, no
// other program. Only /data (the user's) and /tmp are writable by it.
func TestImageFiles(t *testing.T) {
	img := loadImage(t)
	var paths []string
	for p := range img.files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	want := []string{"/data", "/etc", "/etc/group", "/etc/passwd", "/etc/ssl", "/etc/ssl/certs", "/etc/ssl/certs/ca-certificates.crt",
		"/guichet", "/tmp", "/usr", "/usr/share", "/usr/share/doc", "/usr/share/doc/guichet", "/usr/share/doc/guichet/sbom.spdx.json"}
	if !slices.Equal(paths, want) {
		t.Errorf("files %q, want %q", paths, want)
	}
	for _, p := range paths {
		h := img.files[p].hdr
		mode := h.FileInfo().Mode()
		switch {
		case p == "/data":
			if !mode.IsDir() || h.Uid != 65532 || h.Gid != 65532 || mode.Perm() != 0o700 {
				t.Errorf("/data: %v %d:%d, want a directory 0700 of 65532:65532", mode, h.Uid, h.Gid)
			}
		case p == "/tmp":
			if !mode.IsDir() || h.Uid != 0 || mode.Perm() != 0o777 || mode&fs.ModeSticky == 0 {
				t.Errorf("/tmp: %v %d, want root's 1777 directory", mode, h.Uid)
			}
		default:
			if h.Uid != 0 || h.Gid != 0 || mode.Perm()&0o022 != 0 {
				t.Errorf("%s: %v %d:%d, want root's and written by nobody else (the user cannot change the image)", p, mode, h.Uid, h.Gid)
			}
			if h.Typeflag != tar.TypeDir && h.Typeflag != tar.TypeReg {
				t.Errorf("%s: type %c, want regular files and directories only", p, h.Typeflag)
			}
			if mode.IsRegular() && mode.Perm()&0o111 != 0 && p != "/guichet" {
				t.Errorf("%s is executable: the only program is /guichet", p)
			}
		}
	}
	passwd := string(img.files["/etc/passwd"].data)
	if !strings.Contains(passwd, "\nguichet:x:65532:65532:") || strings.Contains(passwd, "/bin/sh") || strings.Contains(passwd, "/bin/bash") {
		t.Errorf("/etc/passwd = %q: want guichet as 65532 and no shell", passwd)
	}
	if group := string(img.files["/etc/group"].data); !strings.Contains(group, "\nguichet:x:65532:") {
		t.Errorf("/etc/group = %q: want guichet as 65532", group)
	}
	certs, rest := 0, img.files["/etc/ssl/certs/ca-certificates.crt"].data
	for {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			t.Errorf("the CA bundle: %v", err)
		}
		certs++
	}
	if certs < 50 {
		t.Errorf("the CA bundle holds %d certificates", certs)
	}
	// Static: no program interpreter (ld.so), no shared library.
	bin := img.files["/guichet"].data
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("/guichet: %v", err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("/guichet asks for a program interpreter: not static (CGO_ENABLED=0)")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("/guichet needs %v: not static", libs)
	}
}

// TestImageSBOM: the SPDX document in the image (and beside the tarball)
// describes this binary (its checksum) and lists its Go modules.
func TestImageSBOM(t *testing.T) {
	img := loadImage(t)
	inImage := img.files["/usr/share/doc/guichet/sbom.spdx.json"].data
	beside, err := os.ReadFile(filepath.Join(root, "dist", "guichet-image.spdx.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(inImage, beside) {
		t.Error("dist/guichet-image.spdx.json differs from the image's SBOM")
	}
	var doc struct {
		SPDXVersion  string `json:"spdxVersion"`
		CreationInfo struct {
			Created string `json:"created"`
		} `json:"creationInfo"`
		Packages []struct {
			Name        string `json:"name"`
			VersionInfo string `json:"versionInfo"`
			Checksums   []struct {
				Algorithm, ChecksumValue string
			} `json:"checksums"`
			ExternalRefs []struct {
				ReferenceType, ReferenceLocator string
			} `json:"externalRefs"`
		} `json:"packages"`
		Relationships []struct {
			Type string `json:"relationshipType"`
		} `json:"relationships"`
	}
	if err := json.Unmarshal(inImage, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SPDXVersion != "SPDX-2.3" || doc.CreationInfo.Created != img.config.Config.Labels["org.opencontainers.image.created"] {
		t.Errorf("SPDX %q created %q: want SPDX-2.3 created at the image's date", doc.SPDXVersion, doc.CreationInfo.Created)
	}
	sum := sha256.Sum256(img.files["/guichet"].data)
	purls := map[string]bool{}
	var main bool
	for _, p := range doc.Packages {
		if p.Name == "guichet" {
			main = len(p.Checksums) == 1 && p.Checksums[0].ChecksumValue == hex.EncodeToString(sum[:]) &&
				p.VersionInfo == img.config.Config.Labels["org.opencontainers.image.version"]
		}
		for _, r := range p.ExternalRefs {
			purls[r.ReferenceLocator] = true
		}
	}
	if !main {
		t.Error("the SBOM's guichet package does not carry /guichet's SHA-256 and the image's version")
	}
	// Modules of the product's go.mod, as the binary's build information
	// lists them (the versions in go.mod may be raised by others' needs).
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mod := range []string{"modernc.org/sqlite", "github.com/jackc/pgx/v5"} {
		v := regexp.MustCompile(regexp.QuoteMeta(mod) + ` (v\S+)`).FindSubmatch(gomod)
		if v == nil || !purls["pkg:golang/"+mod+"@"+string(v[1])] {
			t.Errorf("the SBOM lacks pkg:golang/%s at go.mod's version", mod)
		}
	}
	if !hasPrefixKey(purls, "pkg:golang/stdlib@go1.") {
		t.Error("the SBOM lacks the Go standard library")
	}
	// The SPA the binary embeds: its bundled npm packages at the lock
	// file's versions, and none of the tools that only build or test it.
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	raw, err := os.ReadFile(filepath.Join(root, "web", "package-lock.json"))
	if err == nil {
		err = json.Unmarshal(raw, &lock)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"react", "react-dom", "wouter"} {
		if v := lock.Packages["node_modules/"+name].Version; v == "" || !purls["pkg:npm/"+name+"@"+v] {
			t.Errorf("the SBOM lacks pkg:npm/%s at the lock file's version %q", name, v)
		}
	}
	for _, dev := range []string{"vitest", "vite", "typescript", "playwright-core"} {
		if hasPrefixKey(purls, "pkg:npm/"+dev+"@") {
			t.Errorf("the SBOM lists %s, which only builds or tests the SPA", dev)
		}
	}
	if len(doc.Relationships) != len(doc.Packages) {
		t.Errorf("%d relationships for %d packages: want DESCRIBES guichet and one DEPENDS_ON per other", len(doc.Relationships), len(doc.Packages))
	}
}

// TestImageBinaryRuns runs the image's own /guichet here (it is static):
// `version` prints the version label; `check-config` passes with the
// image's environment; `migrate` creates the SQLite database and writes
// nothing outside the data directory, so a read-only root file system with
// /data (and /tmp) writable is enough.
func TestImageBinaryRuns(t *testing.T) {
	img := loadImage(t)
	if runtime.GOOS != "linux" || runtime.GOARCH != img.config.Architecture {
		t.Skipf("the image's binary is linux/%s; this is %s/%s", img.config.Architecture, runtime.GOOS, runtime.GOARCH)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "guichet")
	if err := os.WriteFile(bin, img.files["/guichet"].data, 0o755); err != nil {
		t.Fatal(err)
	}
	work, tmp, data := filepath.Join(dir, "work"), filepath.Join(dir, "tmp"), filepath.Join(dir, "data")
	for _, d := range []string{work, tmp, data} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The image's environment, with /data here; HOME and TMPDIR empty
	// directories that must stay empty.
	var env []string
	for _, kv := range img.config.Config.Env {
		if strings.HasPrefix(kv, "GUICHET_DATA_DIR=") {
			kv = "GUICHET_DATA_DIR=" + data
		}
		if strings.HasPrefix(kv, "GUICHET_ADDR=") || strings.HasPrefix(kv, "GUICHET_ADMIN_ADDR=") {
			continue // no listener here: these commands open none
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+work, "TMPDIR="+tmp)
	runImage := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("guichet %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if got, want := strings.TrimSpace(runImage("version")), img.config.Config.Labels["org.opencontainers.image.version"]; got != want {
		t.Errorf("guichet version = %q, want the version label %q", got, want)
	}
	if out := runImage("check-config"); !regexp.MustCompile(`embedded sample brands: [1-9][0-9]* brands valid`).MatchString(out) {
		t.Errorf("guichet check-config = %q", out)
	}
	if out := runImage("migrate"); !strings.Contains(out, "migrations applied (sqlite)") {
		t.Errorf("guichet migrate = %q", out)
	}
	written, _ := filepath.Glob(filepath.Join(data, "*"))
	if len(written) == 0 {
		t.Error("migrate wrote nothing under the data directory")
	}
	for _, d := range []string{work, tmp} {
		if left, _ := os.ReadDir(d); len(left) > 0 {
			t.Errorf("the binary wrote %v in %s: only the data directory is writable in the image", left[0].Name(), d)
		}
	}
}

// TestImageReproducible rebuilds the image with tools/image from what is
// in it (its binary and CA bundle) and the arguments make image used
// (dist/image-args): the same bytes, so the same digest.
func TestImageReproducible(t *testing.T) {
	img := loadImage(t)
	args, err := os.ReadFile(filepath.Join(root, "dist", "image-args"))
	if err != nil {
		t.Fatal(err)
	}
	// go from PATH, else from GOROOT (go test sets it for the test binary).
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	dir := t.TempDir()
	bin, certs, out := filepath.Join(dir, "guichet"), filepath.Join(dir, "ca.crt"), filepath.Join(dir, "image.tar")
	if err := os.WriteFile(bin, img.files["/guichet"].data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certs, img.files["/etc/ssl/certs/ca-certificates.crt"].data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The recorded arguments, then the binary, CA bundle and output here
	// (a later flag wins).
	cmdArgs := append([]string{"run", "./image", "build"}, strings.Fields(string(args))...)
	cmdArgs = append(cmdArgs, "--binary", bin, "--certs", certs, "--out", out)
	cmd := exec.Command(goBin, cmdArgs...)
	cmd.Dir = filepath.Join(root, "tools")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(cmdArgs, " "), err, b)
	}
	again, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, img.raw) {
		t.Errorf("the rebuilt image (%d bytes) differs from dist/guichet-image.tar (%d bytes)", len(again), len(img.raw))
	}
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

func hasPrefixKey(m map[string]bool, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// envMap is a KEY=VALUE list as a map.
func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}
