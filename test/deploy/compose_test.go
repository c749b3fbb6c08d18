package deploy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// composeFile is the part of compose.yaml the checks read.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Build       any               `yaml:"build"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Healthcheck *struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
		Volumes  []string `yaml:"volumes"`
		Networks map[string]struct {
			IPv4 string `yaml:"ipv4_address"`
		} `yaml:"networks"`
		ReadOnly bool `yaml:"read_only"`
	} `yaml:"services"`
	Networks map[string]struct {
		IPAM struct {
			Config []struct {
				Subnet string `yaml:"subnet"`
			} `yaml:"config"`
		} `yaml:"ipam"`
	} `yaml:"networks"`
	Volumes map[string]any `yaml:"volumes"`
}

// configVariables are the GUICHET_ variables the configuration reads: the
// string literals internal/app passes to get, os.Getenv and os.LookupEnv,
// and the prefixes it builds names from (GUICHET_SERVICE_KEY_<BRAND>).
func configVariables(t *testing.T) (names map[string]bool, prefixes []string) {
	t.Helper()
	names = map[string]bool{}
	files, err := filepath.Glob(filepath.Join(root, "internal", "app", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				name := ""
				switch fun := n.Fun.(type) {
				case *ast.Ident:
					name = fun.Name
				case *ast.SelectorExpr:
					if x, ok := fun.X.(*ast.Ident); ok {
						name = x.Name + "." + fun.Sel.Name
					}
				}
				if name != "get" && name != "os.Getenv" && name != "os.LookupEnv" || len(n.Args) == 0 {
					return true
				}
				if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(v, "GUICHET_") {
						names[v] = true
					}
				}
			case *ast.BinaryExpr: // "GUICHET_X_" + something: a family of names
				if lit, ok := n.X.(*ast.BasicLit); ok && n.Op == token.ADD && lit.Kind == token.STRING {
					if v, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(v, "GUICHET_") && strings.HasSuffix(v, "_") {
						prefixes = append(prefixes, v)
					}
				}
			}
			return true
		})
	}
	if len(names) < 10 || !names["GUICHET_DATABASE_URL"] {
		t.Fatalf("found %d variables in internal/app (%v): the parsing missed ConfigFromEnv", len(names), names)
	}
	return names, prefixes
}

// haproxyVariables are the "${VAR}" names deploy/haproxy.cfg reads, and
// those it may go without (inside ".if defined(VAR)").
func haproxyVariables(t *testing.T) (all, optional map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy", "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	all, optional = map[string]bool{}, map[string]bool{}
	config := regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(string(b), "") // comments name "${VAR}" too
	for _, m := range regexp.MustCompile(`\$\{([A-Z0-9_]+)\}`).FindAllStringSubmatch(config, -1) {
		all[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`(?m)^\.if defined\(([A-Z0-9_]+)\)`).FindAllStringSubmatch(config, -1) {
		optional[m[1]] = true
	}
	return all, optional
}

// hostPort is the host and port of an address or URL ("" port: none).
func hostPort(t *testing.T, s string) (string, string) {
	t.Helper()
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return u.Hostname(), u.Port()
	}
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return h, p
}

// TestCompose: compose.yaml's services use pinned images (or this
// repository's Dockerfile), set only variables their program reads (the
// guichet services: the configuration's, read from internal/app; HAProxy:
// deploy/haproxy.cfg's), and agree on addresses, ports and depends_on.
func TestCompose(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	names, prefixes := configVariables(t)
	lbVars, lbOptional := haproxyVariables(t)
	// The image's own environment (GUICHET_ADDR): the Dockerfile's ENV.
	_, stages := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	imageEnv := map[string]string{}
	for _, in := range stages[len(stages)-1].body {
		if in.cmd == "ENV" {
			for k, v := range pairs(t, in.args) {
				imageEnv[k] = v
			}
		}
	}
	pinned := regexp.MustCompile(`^[a-z0-9./-]+(:v?\d+\.\d+(\.\d+)?(-[a-z0-9.]+)?)?(@sha256:[0-9a-f]{64})?$`)
	var guichets []string
	hostPorts := map[string]string{}
	for name, s := range c.Services {
		if s.Build != nil {
			if s.Build != "." {
				t.Errorf("%s: build %v, want this repository's Dockerfile (build: .)", name, s.Build)
			}
			guichets = append(guichets, name)
		} else if !pinned.MatchString(s.Image) || !strings.ContainsAny(s.Image, ":@") {
			t.Errorf("%s: image %q is not pinned (want name:MAJOR.MINOR[.PATCH] or @sha256:..., never latest or a major alone)", name, s.Image)
		}
		for dep := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("%s depends on %s, which is no service", name, dep)
			}
			if s.DependsOn[dep].Condition == "service_healthy" && c.Services[dep].Healthcheck == nil {
				t.Errorf("%s waits for %s to be healthy; %s has no healthcheck", name, dep, dep)
			}
		}
		for _, p := range s.Ports {
			parts := strings.Split(p, ":")
			host := strings.Join(parts[:len(parts)-1], ":")
			if other, ok := hostPorts[host]; ok {
				t.Errorf("%s and %s publish the same host port %s", name, other, host)
			}
			hostPorts[host] = name
		}
		// dependsOnHost: a URL or address of another service must be one
		// this service starts after.
		dependsOnHost := func(v, addr string) {
			host, _ := hostPort(t, addr)
			if _, isService := c.Services[host]; !isService {
				return
			}
			if _, ok := s.DependsOn[host]; !ok {
				t.Errorf("%s: %s names %s, which it does not depend on", name, v, host)
			}
		}
		for k, v := range s.Environment {
			if !strings.HasPrefix(k, "GUICHET_") {
				continue
			}
			switch {
			case s.Build != nil:
				known := names[k]
				for _, p := range prefixes {
					known = known || strings.HasPrefix(k, p) && len(k) > len(p)
				}
				if !known {
					t.Errorf("%s sets %s, which the configuration (internal/app) does not read", name, k)
				}
				if k == "GUICHET_DATABASE_URL" || k == "GUICHET_SMTP_URL" {
					dependsOnHost(k, v)
				}
			case strings.HasPrefix(s.Image, "haproxy:"):
				if !lbVars[k] {
					t.Errorf("%s sets %s, which deploy/haproxy.cfg does not read", name, k)
				}
				if strings.HasPrefix(k, "GUICHET_APP") {
					dependsOnHost(k, v)
				}
			default:
				t.Errorf("%s sets %s: only Guichet and HAProxy read GUICHET_ variables", name, k)
			}
		}
	}
	if len(guichets) != 2 {
		t.Errorf("%d Guichet instances (%v), want two", len(guichets), guichets)
	}
	for _, s := range c.Services {
		if s.Build == nil {
			continue
		}
		if !s.ReadOnly {
			t.Error("a Guichet instance without read_only: the image runs on a read-only root")
		}
		if u := s.Environment["GUICHET_DATABASE_URL"]; !strings.HasPrefix(u, "postgres://") {
			t.Errorf("GUICHET_DATABASE_URL %q: two instances share one PostgreSQL", u)
		}
	}
	// HAProxy: every variable of deploy/haproxy.cfg set (but the optional
	// ones), its backends the two instances at the port they listen on,
	// its address the one the instances trust, its bind port published.
	var lb string
	for name, s := range c.Services {
		if strings.HasPrefix(s.Image, "haproxy:") {
			lb = name
		}
	}
	if lb == "" {
		t.Fatal("no haproxy service")
	}
	h := c.Services[lb]
	if !slices.Contains(h.Volumes, "./deploy:/usr/local/etc/haproxy:ro") {
		t.Errorf("%s: volumes %v, want deploy/ (haproxy.cfg and errors/) where the image reads it", lb, h.Volumes)
	}
	for v := range lbVars {
		if _, ok := h.Environment[v]; !ok && !lbOptional[v] {
			t.Errorf("%s does not set %s, which deploy/haproxy.cfg needs", lb, v)
		}
	}
	backends := map[string]bool{}
	for k, v := range h.Environment {
		if !strings.HasPrefix(k, "GUICHET_APP") {
			continue
		}
		host, port := hostPort(t, v)
		backends[host] = true
		addr := c.Services[host].Environment["GUICHET_ADDR"]
		if addr == "" {
			addr = imageEnv["GUICHET_ADDR"]
		}
		if _, listen := hostPort(t, addr); listen != port {
			t.Errorf("%s=%s, but %s listens on %s", k, v, host, addr)
		}
	}
	for _, g := range guichets {
		if !backends[g] {
			t.Errorf("HAProxy does not send to %s", g)
		}
	}
	_, bindPort := hostPort(t, h.Environment["GUICHET_LB_BIND"])
	published := false
	for _, p := range h.Ports {
		published = published || strings.HasSuffix(p, ":"+bindPort)
	}
	if !published {
		t.Errorf("%s binds port %s and does not publish it (%v)", lb, bindPort, h.Ports)
	}
	lbIP := h.Networks["default"].IPv4
	_, subnet, err := net.ParseCIDR(c.Networks["default"].IPAM.Config[0].Subnet)
	if err != nil || net.ParseIP(lbIP) == nil || !subnet.Contains(net.ParseIP(lbIP)) {
		t.Errorf("%s's address %q is not in the network's subnet (%v)", lb, lbIP, err)
	}
	for _, g := range guichets {
		trusted := c.Services[g].Environment["GUICHET_TRUSTED_PROXIES"]
		ok := false
		for _, cidr := range strings.Split(trusted, ",") {
			if _, n, err := net.ParseCIDR(strings.TrimSpace(cidr)); err == nil && n.Contains(net.ParseIP(lbIP)) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s: GUICHET_TRUSTED_PROXIES=%q does not hold HAProxy's %s", g, trusted, lbIP)
		}
	}
	// Named volumes are declared.
	for name, s := range c.Services {
		for _, v := range s.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if !strings.HasPrefix(src, ".") && !strings.HasPrefix(src, "/") {
				if _, ok := c.Volumes[src]; !ok {
					t.Errorf("%s mounts volume %s, which is not declared", name, src)
				}
			}
		}
	}
}

// Every GUICHET_ variable the Helm chart names (deploy/helm/guichet: the
// pods' environment, the secret names it refuses in extraEnv, the keys
// values.yaml tells to put in the Secret) is one the configuration reads:
// a misspelt name there would be set and ignored. deploy/helm/test checks
// the rendered objects; this only the names.
func TestHelmChartVariablesAreRead(t *testing.T) {
	names, prefixes := configVariables(t)
	found := 0
	err := filepath.WalkDir(filepath.Join(root, "deploy", "helm", "guichet"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, v := range regexp.MustCompile(`GUICHET_[A-Z0-9_]+`).FindAllString(string(b), -1) {
			found++
			if !names[v] && !slices.Contains(prefixes, v) {
				t.Errorf("%s names %s, which the configuration (internal/app) does not read", path, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 20 {
		t.Fatalf("found %d GUICHET_ names in the chart: the walk missed it", found)
	}
}
