// Package helmtest checks the Helm chart deploy/helm/guichet offline (make
// test-helm): helm lint and helm template through the Helm SDK with the
// values files of testdata/, every rendered object decoded strictly into its
// Kubernetes type (an unknown or duplicate field fails), then what the
// objects say: probes, security context, secrets by reference only, the
// migration hook, the refusals of an invalid combination, and brand files
// that the real binary loads. Its own module, so that neither the product's
// go.mod nor tools/go.mod holds Kubernetes.
package helmtest

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

const (
	chartDir  = "../guichet"
	namespace = "portal"
	release   = "guichet"
)

// kubeVersion is the cluster the chart is rendered for (Chart.yaml's
// kubeVersion is the oldest it accepts).
var kubeVersion = &chartutil.KubeVersion{Version: "v1.33.0", Major: "1", Minor: "33"}

// decoder decodes into the types of client-go's scheme and the
// prometheus-operator's, strictly: an unknown or duplicate field is an error.
var decoder = func() runtime.Decoder {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, monitoringv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
}()

// rendered is one helm template: the objects, hooks included, and the text.
type rendered struct {
	objects []runtime.Object
	text    string
}

// values merges the values files of testdata/ (as helm's -f, in order)
// and then extra.
func loadValues(t *testing.T, files []string, extra map[string]any) map[string]any {
	t.Helper()
	opts := values.Options{}
	for _, f := range files {
		opts.ValueFiles = append(opts.ValueFiles, filepath.Join("testdata", f))
	}
	vals, err := opts.MergeValues(getter.Providers{})
	if err != nil {
		t.Fatal(err)
	}
	return chartutil.CoalesceTables(extra, vals)
}

// template renders the chart as `helm template` does (client only, no
// cluster) and decodes each object strictly.
func template(t *testing.T, vals map[string]any) (*rendered, error) {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	install := action.NewInstall(&action.Configuration{Log: t.Logf})
	install.DryRun, install.DryRunOption = true, "true"
	install.ClientOnly, install.Replace = true, true
	install.ReleaseName, install.Namespace = release, namespace
	install.KubeVersion = kubeVersion
	install.APIVersions = chartutil.VersionSet{"monitoring.coreos.com/v1"}
	rel, err := install.Run(ch, vals)
	if err != nil {
		return nil, err
	}
	docs := []string{}
	for _, m := range releaseutil.SplitManifests(rel.Manifest) {
		docs = append(docs, m)
	}
	for _, h := range rel.Hooks {
		docs = append(docs, h.Manifest)
	}
	slices.Sort(docs)
	r := &rendered{text: strings.Join(docs, "\n---\n")}
	for _, d := range docs {
		obj, _, err := decoder.Decode([]byte(d), nil, nil)
		if err != nil {
			t.Fatalf("decoding strictly:\n%s\n%v", d, err)
		}
		r.objects = append(r.objects, obj)
	}
	return r, nil
}

func mustTemplate(t *testing.T, files []string, extra map[string]any) *rendered {
	t.Helper()
	r, err := template(t, loadValues(t, files, extra))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// only returns the one object of type T, failing unless there is exactly one.
func only[T runtime.Object](t *testing.T, r *rendered) T {
	t.Helper()
	var found []T
	for _, o := range r.objects {
		if v, ok := o.(T); ok {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		var zero T
		t.Fatalf("%d objects of type %T, want 1", len(found), zero)
	}
	return found[0]
}

// byName returns the object of type T called name, failing unless there is one.
func byName[T interface {
	runtime.Object
	GetName() string
}](t *testing.T, r *rendered, name string) T {
	t.Helper()
	var all []T
	for _, o := range r.objects {
		if v, ok := o.(T); ok {
			all = append(all, v)
		}
	}
	return named(t, "rendered objects", all, name, T.GetName)
}

// kinds lists the rendered objects' kinds, sorted.
func (r *rendered) kinds() []string {
	var ks []string
	for _, o := range r.objects {
		ks = append(ks, strings.TrimPrefix(fmt.Sprintf("%T", o), "*"))
	}
	slices.Sort(ks)
	return ks
}

// podSpecs are the pod templates of the Deployment and of the Jobs.
func (r *rendered) podSpecs() map[string]corev1.PodSpec {
	specs := map[string]corev1.PodSpec{}
	for _, o := range r.objects {
		switch v := o.(type) {
		case *appsv1.Deployment:
			specs["Deployment/"+v.Name] = v.Spec.Template.Spec
		case *batchv1.Job:
			specs["Job/"+v.Name] = v.Spec.Template.Spec
		}
	}
	return specs
}

// brandsValues are the repository's sample brands (config/brands) as
// brands.files, given as helm's --set-file does (values.yaml's example:
// 'brands.files.belair/faq\.yaml=config/brands/belair/faq.yaml').
func brandsValues(t *testing.T) map[string]any {
	t.Helper()
	root := "../../../config/brands"
	opts := values.Options{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		opts.FileValues = append(opts.FileValues, "brands.files."+strings.ReplaceAll(filepath.ToSlash(rel), ".", `\.`)+"="+path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	vals, err := opts.MergeValues(getter.Providers{})
	if err != nil {
		t.Fatal(err)
	}
	if files := vals["brands"].(map[string]any)["files"].(map[string]any); len(files) != len(opts.FileValues) || files["belair/faq.yaml"] == nil {
		t.Fatalf("--set-file gave brands.files %v", slices.Sorted(maps.Keys(files)))
	}
	return vals
}

func haValues(t *testing.T) *rendered {
	return mustTemplate(t, []string{"postgres-ha.yaml"}, brandsValues(t))
}

func TestDecodeIsStrict(t *testing.T) {
	doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replica: 3\n"
	if _, _, err := decoder.Decode([]byte(doc), nil, nil); err == nil || !strings.Contains(err.Error(), "replica") {
		t.Fatalf("unknown field spec.replica: err = %v, want a strict decoding error", err)
	}
	doc = "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: x\nspec:\n  endpoints:\n    - port: admin\n      paht: /metrics\n"
	if _, _, err := decoder.Decode([]byte(doc), nil, nil); err == nil || !strings.Contains(err.Error(), "paht") {
		t.Fatalf("unknown field endpoints[0].paht: err = %v, want a strict decoding error", err)
	}
}

func TestLint(t *testing.T) {
	for _, files := range [][]string{{"sqlite.yaml"}, {"postgres-ha.yaml"}} {
		lint := action.NewLint()
		lint.Strict, lint.Namespace, lint.KubeVersion = true, namespace, kubeVersion
		res := lint.Run([]string{chartDir}, loadValues(t, files, brandsValues(t)))
		for _, m := range res.Messages {
			t.Logf("%v: %s", files, m)
		}
		if len(res.Errors) > 0 || res.TotalChartsLinted != 1 {
			t.Errorf("helm lint --strict with %v: %d charts linted: %v", files, res.TotalChartsLinted, errors.Join(res.Errors...))
		}
	}
	// helm lint renders in its lint mode, where `fail` is only logged
	// ("[INFO] Fail: ..."): the refusals are TestInvalidValuesFail's, on
	// the render helm install and helm template do.
}

func TestSQLiteSingleReplica(t *testing.T) {
	r := mustTemplate(t, []string{"sqlite.yaml"}, nil)
	want := []string{"v1.PersistentVolumeClaim", "v1.Service", "v1.Service", "v1.ServiceAccount", "v1.Deployment"}
	slices.Sort(want)
	if got := r.kinds(); !slices.Equal(got, want) {
		t.Errorf("kinds = %v, want %v (no migration Job, PDB, HPA, Ingress on SQLite's defaults)", got, want)
	}
	d := only[*appsv1.Deployment](t, r)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
		t.Errorf("replicas = %v, want 1", d.Spec.Replicas)
	}
	if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("strategy = %q, want Recreate (one SQLite writer)", d.Spec.Strategy.Type)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if c.Image != "guichet:v1.2.3" || !slices.Equal(c.Args, []string{"serve"}) {
		t.Errorf("image %q args %q", c.Image, c.Args)
	}
	pvc := only[*corev1.PersistentVolumeClaim](t, r)
	data := volume(t, d.Spec.Template.Spec, "data")
	if data.PersistentVolumeClaim == nil || data.PersistentVolumeClaim.ClaimName != pvc.Name {
		t.Errorf("volume data = %+v, want the claim %s", data.VolumeSource, pvc.Name)
	}
	if mountPath(t, c, "data") != "/data" || envValue(t, c, "GUICHET_DATA_DIR") != "/data" {
		t.Error("the claim must be GUICHET_DATA_DIR, /data")
	}
	if _, ok := env(c, "GUICHET_DATABASE_URL"); ok {
		t.Error("GUICHET_DATABASE_URL set on SQLite")
	}
	if envValue(t, c, "GUICHET_MAIL") != "log" || len(c.EnvFrom) != 0 {
		t.Errorf("config.mail: GUICHET_MAIL = %q, envFrom %+v: want log and no Secret", envValue(t, c, "GUICHET_MAIL"), c.EnvFrom)
	}
	if _, ok := env(c, "GUICHET_BRANDS_DIR"); ok {
		t.Error("GUICHET_BRANDS_DIR set without brand files (the embedded samples serve)")
	}
}

func TestPostgresHA(t *testing.T) {
	r := haValues(t)
	want := []string{"v1.ConfigMap", "v1.Deployment", "v2.HorizontalPodAutoscaler", "v1.Ingress", "v1.Job",
		"v1.NetworkPolicy", "v1.NetworkPolicy", "v1.PodDisruptionBudget", "v1.Service", "v1.Service", "v1.ServiceAccount", "v1.ServiceMonitor"}
	slices.Sort(want)
	if got := r.kinds(); !slices.Equal(got, want) {
		t.Errorf("kinds = %v, want %v", got, want)
	}
	d := only[*appsv1.Deployment](t, r)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	labels := d.Spec.Template.Labels
	if d.Spec.Replicas != nil {
		t.Errorf("replicas = %d with the HPA on, want none (the HPA owns it)", *d.Spec.Replicas)
	}
	ru := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil || ru.MaxUnavailable.IntValue() != 0 || ru.MaxSurge.IntValue() != 1 {
		t.Errorf("strategy = %+v, want RollingUpdate, maxSurge 1, maxUnavailable 0", d.Spec.Strategy)
	}
	if c.Image != "registry.example/guichet:v1.2.3" {
		t.Errorf("image = %q", c.Image)
	}
	if pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds < 8+20+15 {
		t.Errorf("terminationGracePeriodSeconds = %v: want room for the 8 s drain, 20 s of requests and 15 s of outbox", pod.TerminationGracePeriodSeconds)
	}
	if envValue(t, c, "GUICHET_DRAIN_SECONDS") != "8" || envValue(t, c, "GUICHET_CONSOLE_HOST") != "console.insurer.example" ||
		envValue(t, c, "GUICHET_TRUSTED_PROXIES") != "10.244.0.0/16" {
		t.Error("config values not passed as GUICHET_* variables")
	}
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != "guichet-secrets" {
		t.Errorf("envFrom = %+v, want the Secret guichet-secrets", c.EnvFrom)
	}
	if v := volume(t, pod, "data"); v.EmptyDir == nil {
		t.Errorf("PostgreSQL: /data = %+v, want an emptyDir", v.VolumeSource)
	}

	svc, admin := byName[*corev1.Service](t, r, release), byName[*corev1.Service](t, r, release+"-admin")
	selects(t, "Service", svc.Spec.Selector, labels)
	selects(t, "admin Service", admin.Spec.Selector, labels)
	if p := servicePort(t, svc, "http"); p.TargetPort != intstr.FromString("http") || containerPort(t, c, "http") != 8080 {
		t.Errorf("service port http = %+v", p)
	}
	if p := servicePort(t, admin, "admin"); p.TargetPort != intstr.FromString("admin") || containerPort(t, c, "admin") != 9090 {
		t.Errorf("admin service port admin = %+v", p)
	}

	ing := only[*networkingv1.Ingress](t, r)
	if ing.Annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] != "3600" || ing.Annotations["nginx.ingress.kubernetes.io/proxy-send-timeout"] != "3600" {
		t.Errorf("ingress annotations = %v, want ingress-nginx's WebSocket timeouts (3600)", ing.Annotations)
	}
	var hosts []string
	for _, rule := range ing.Spec.Rules {
		hosts = append(hosts, rule.Host)
		b := rule.HTTP.Paths[0].Backend.Service
		if b.Name != svc.Name || b.Port.Name != "http" || rule.HTTP.Paths[0].Path != "/" {
			t.Errorf("ingress rule %s goes to %+v", rule.Host, b)
		}
	}
	if !slices.Equal(hosts, []string{"belair.insurer.example", "intact.insurer.example", "console.insurer.example"}) {
		t.Errorf("ingress hosts = %v", hosts)
	}

	hpa := only[*autoscalingv2.HorizontalPodAutoscaler](t, r)
	if hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != d.Name || *hpa.Spec.MinReplicas != 3 || hpa.Spec.MaxReplicas != 8 {
		t.Errorf("HPA = %+v", hpa.Spec)
	}
	pdb := only[*policyv1.PodDisruptionBudget](t, r)
	selects(t, "PodDisruptionBudget", pdb.Spec.Selector.MatchLabels, labels)
	if pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PDB maxUnavailable = %v", pdb.Spec.MaxUnavailable)
	}

	sm := only[*monitoringv1.ServiceMonitor](t, r)
	selects(t, "ServiceMonitor", sm.Spec.Selector.MatchLabels, admin.Labels)
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "admin" || sm.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("ServiceMonitor endpoints = %+v, want /metrics on the admin port", sm.Spec.Endpoints)
	}
	if sm.Labels["release"] != "kube-prometheus-stack" || !slices.Equal(sm.Spec.NamespaceSelector.MatchNames, []string{namespace}) {
		t.Errorf("ServiceMonitor labels %v namespaces %v", sm.Labels, sm.Spec.NamespaceSelector.MatchNames)
	}

	np := byName[*networkingv1.NetworkPolicy](t, r, release)
	selects(t, "NetworkPolicy", np.Spec.PodSelector.MatchLabels, labels)
	ports := map[string]string{}
	for _, rule := range np.Spec.Ingress {
		if len(rule.From) == 0 {
			t.Errorf("ingress rule %+v is open to every pod", rule)
		}
		ports[rule.Ports[0].Port.String()] = rule.From[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"]
	}
	if ports["http"] != "ingress-nginx" || ports["admin"] != "monitoring" || len(ports) != 2 {
		t.Errorf("NetworkPolicy ingress = %v, want http from ingress-nginx, admin from monitoring", ports)
	}
	if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) || len(np.Spec.Egress) != 2 || np.Spec.Egress[0].Ports[0].Port.IntValue() != 53 {
		t.Errorf("NetworkPolicy egress = %+v, want DNS then the listed rule", np.Spec.Egress)
	}
}

// Without the autoscaler the Deployment holds the replicas, and the
// disruption budget is there only when more than one pod runs.
func TestReplicasWithoutAutoscaling(t *testing.T) {
	for _, n := range []int{1, 3} {
		r := mustTemplate(t, []string{"postgres-ha.yaml"}, map[string]any{"replicaCount": n, "autoscaling": map[string]any{"enabled": false}})
		d := only[*appsv1.Deployment](t, r)
		if d.Spec.Replicas == nil || int(*d.Spec.Replicas) != n {
			t.Errorf("replicaCount %d: replicas = %v", n, d.Spec.Replicas)
		}
		pdbs := 0
		for _, o := range r.objects {
			if _, ok := o.(*policyv1.PodDisruptionBudget); ok {
				pdbs++
			}
			if _, ok := o.(*autoscalingv2.HorizontalPodAutoscaler); ok {
				t.Errorf("replicaCount %d: an autoscaler with autoscaling.enabled=false", n)
			}
		}
		if want := min(n-1, 1); pdbs != want {
			t.Errorf("replicaCount %d: %d PodDisruptionBudgets, want %d", n, pdbs, want)
		}
	}
}

// The migration: a pre-install and pre-upgrade hook running `guichet
// migrate` on the database of the Secret, before any pod of the release.
func TestMigrationJobIsAHook(t *testing.T) {
	r := haValues(t)
	job := only[*batchv1.Job](t, r)
	want := map[string]string{
		"helm.sh/hook":               "pre-install,pre-upgrade",
		"helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded",
	}
	for k, v := range want {
		if job.Annotations[k] != v {
			t.Errorf("Job annotation %s = %q, want %q", k, job.Annotations[k], v)
		}
	}
	c := job.Spec.Template.Spec.Containers[0]
	d := only[*appsv1.Deployment](t, r)
	if !slices.Equal(c.Args, []string{"migrate"}) || c.Image != d.Spec.Template.Spec.Containers[0].Image {
		t.Errorf("Job runs %q %q, want the Deployment's image with [migrate]", c.Image, c.Args)
	}
	if job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy = %q", job.Spec.Template.Spec.RestartPolicy)
	}
	for _, ctr := range []corev1.Container{c, d.Spec.Template.Spec.Containers[0]} {
		e, _ := env(ctr, "GUICHET_DATABASE_URL")
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "guichet-database" ||
			e.ValueFrom.SecretKeyRef.Key != "GUICHET_DATABASE_URL" {
			t.Errorf("%s: GUICHET_DATABASE_URL = %+v, want the key of the Secret guichet-database", ctr.Name, e)
		}
	}
	// The hook runs before the chart's ServiceAccount exists.
	if sa := job.Spec.Template.Spec.ServiceAccountName; sa != "" {
		t.Errorf("Job serviceAccountName = %q, a ServiceAccount the hook cannot wait for", sa)
	}
	// The Job's labels do not select it as a serving pod.
	selects(t, "Service (must not)", byName[*corev1.Service](t, r, release).Spec.Selector, job.Spec.Template.Labels, true)
	selects(t, "admin Service (must not)", byName[*corev1.Service](t, r, release+"-admin").Spec.Selector, job.Spec.Template.Labels, true)
}

// The admin listener (/metrics, the insurers' admin API) has a Service of
// its own, ClusterIP whatever service.type is: a LoadBalancer publishes
// the portal's port only. The ServiceMonitor selects the admin Service
// alone.
func TestAdminServiceStaysInside(t *testing.T) {
	r := mustTemplate(t, []string{"postgres-ha.yaml"}, map[string]any{"service": map[string]any{"type": "LoadBalancer"}})
	var portal, admin *corev1.Service
	for _, o := range r.objects {
		if s, ok := o.(*corev1.Service); ok {
			for _, p := range s.Spec.Ports {
				if p.Name == "admin" || p.Port == 9090 || p.TargetPort == intstr.FromString("admin") {
					if admin != nil && admin != s {
						t.Errorf("the admin port on the Services %s and %s", admin.Name, s.Name)
					}
					admin = s
				}
			}
			if s.Spec.Type == corev1.ServiceTypeLoadBalancer {
				portal = s
			}
		}
	}
	if portal == nil || admin == nil || portal == admin {
		t.Fatalf("portal Service %v, admin Service %v: want two, the LoadBalancer without the admin port", portal, admin)
	}
	if len(portal.Spec.Ports) != 1 || portal.Spec.Ports[0].Name != "http" {
		t.Errorf("LoadBalancer ports = %+v, want http only", portal.Spec.Ports)
	}
	if admin.Spec.Type != corev1.ServiceTypeClusterIP || len(admin.Spec.Ports) != 1 {
		t.Errorf("admin Service type %q ports %+v, want ClusterIP with admin only", admin.Spec.Type, admin.Spec.Ports)
	}
	sm := only[*monitoringv1.ServiceMonitor](t, r)
	selects(t, "ServiceMonitor", sm.Spec.Selector.MatchLabels, admin.Labels)
	selects(t, "ServiceMonitor (must not)", sm.Spec.Selector.MatchLabels, portal.Labels, true)
}

// The scrape's job is serviceMonitor.jobLabel ("guichet", what
// deploy/prometheus/guichet-rules.yaml and the README's scrape config
// use), not the operator's default, the Service's name.
func TestServiceMonitorJob(t *testing.T) {
	for want, extra := range map[string]map[string]any{
		"guichet": nil,
		"portal":  {"serviceMonitor": map[string]any{"jobLabel": "portal"}},
	} {
		sm := only[*monitoringv1.ServiceMonitor](t, mustTemplate(t, []string{"postgres-ha.yaml"}, extra))
		var jobs []string
		for _, rc := range sm.Spec.Endpoints[0].RelabelConfigs {
			if rc.TargetLabel == "job" && (rc.Action == "" || strings.EqualFold(rc.Action, "replace")) && rc.Replacement != nil && len(rc.SourceLabels) == 0 {
				jobs = append(jobs, *rc.Replacement)
			}
		}
		if !slices.Equal(jobs, []string{want}) {
			t.Errorf("jobLabel %q: the endpoint's relabelings set job to %q, want %q", want, jobs, want)
		}
	}
}

// The migration Job's pods reach the database under the same egress rules
// as the server's: a NetworkPolicy of their own (the server's does not
// select them), a hook created before the Job, since on a first install
// the server's does not exist yet.
func TestMigrationJobNetworkPolicy(t *testing.T) {
	r := haValues(t)
	job := only[*batchv1.Job](t, r)
	server := byName[*networkingv1.NetworkPolicy](t, r, release)
	selects(t, "server NetworkPolicy (must not)", server.Spec.PodSelector.MatchLabels, job.Spec.Template.Labels, true)
	np := byName[*networkingv1.NetworkPolicy](t, r, release+"-migrate")
	selects(t, "migration NetworkPolicy", np.Spec.PodSelector.MatchLabels, job.Spec.Template.Labels)
	selects(t, "migration NetworkPolicy (must not)", np.Spec.PodSelector.MatchLabels, only[*appsv1.Deployment](t, r).Spec.Template.Labels, true)
	if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) || !reflect.DeepEqual(np.Spec.Egress, server.Spec.Egress) || len(np.Spec.Egress) != 2 {
		t.Errorf("migration egress %v, want the server's %v", np.Spec.Egress, server.Spec.Egress)
	}
	if len(np.Spec.Ingress) != 0 {
		t.Errorf("migration ingress %v, want none", np.Spec.Ingress)
	}
	if np.Annotations["helm.sh/hook"] != job.Annotations["helm.sh/hook"] || np.Annotations["helm.sh/hook-weight"] >= job.Annotations["helm.sh/hook-weight"] ||
		!strings.Contains(np.Annotations["helm.sh/hook-delete-policy"], "before-hook-creation") {
		t.Errorf("migration NetworkPolicy annotations %v: want the Job's hook (%v) with a lower weight", np.Annotations, job.Annotations)
	}
	// Egress not restricted by the chart: no policy for the Job either.
	r = mustTemplate(t, []string{"postgres-ha.yaml"}, map[string]any{"networkPolicy": map[string]any{"egress": []any{}}})
	if n := strings.Count(strings.Join(r.kinds(), " "), "NetworkPolicy"); n != 1 {
		t.Errorf("networkPolicy.egress empty: %d NetworkPolicies, want the server's only", n)
	}
}

// Probes on the portal listener (GUICHET_ADDR :8080): /healthz, which
// needs nothing, for liveness and start-up; /readyz, red when the
// database does not answer or the pod drains, for readiness.
func TestProbes(t *testing.T) {
	for _, files := range []string{"sqlite.yaml", "postgres-ha.yaml"} {
		d := only[*appsv1.Deployment](t, mustTemplate(t, []string{files}, nil))
		c := d.Spec.Template.Spec.Containers[0]
		addr := envValue(t, c, "GUICHET_ADDR")
		if addr != ":8080" || containerPort(t, c, "http") != 8080 || envValue(t, c, "GUICHET_ADMIN_ADDR") != ":9090" || containerPort(t, c, "admin") != 9090 {
			t.Errorf("%s: listeners %s / %s and ports disagree", files, addr, envValue(t, c, "GUICHET_ADMIN_ADDR"))
		}
		for name, p := range map[string]*corev1.Probe{"startup:/healthz": c.StartupProbe, "liveness:/healthz": c.LivenessProbe, "readiness:/readyz": c.ReadinessProbe} {
			path := strings.SplitN(name, ":", 2)[1]
			if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Port != intstr.FromString("http") {
				t.Errorf("%s: %s probe = %+v, want GET %s on the port http", files, name, p, path)
			}
		}
		if p := c.ReadinessProbe; p.PeriodSeconds*p.FailureThreshold >= 5 {
			t.Errorf("%s: readiness turns red after %d s, not within the 5 s drain", files, p.PeriodSeconds*p.FailureThreshold)
		}
	}
}

// Every pod and container: non-root 65532, read-only root, no privilege
// escalation, no capability, RuntimeDefault seccomp; writable only /data,
// /tmp; the brands read-only.
func TestSecurityContext(t *testing.T) {
	for _, files := range []string{"sqlite.yaml", "postgres-ha.yaml"} {
		specs := mustTemplate(t, []string{files}, brandsValues(t)).podSpecs()
		if len(specs) == 0 {
			t.Fatal("no pod spec")
		}
		for name, pod := range specs {
			ps := pod.SecurityContext
			if ps == nil || ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot || ps.RunAsUser == nil || *ps.RunAsUser != 65532 ||
				ps.FSGroup == nil || *ps.FSGroup != 65532 || ps.SeccompProfile == nil || ps.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
				t.Errorf("%s %s: pod securityContext = %+v", files, name, ps)
			}
			if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
				t.Errorf("%s %s: the service account token is mounted", files, name)
			}
			for _, c := range append(pod.InitContainers, pod.Containers...) {
				s := c.SecurityContext
				if s == nil || s.RunAsNonRoot == nil || !*s.RunAsNonRoot || s.ReadOnlyRootFilesystem == nil || !*s.ReadOnlyRootFilesystem ||
					s.AllowPrivilegeEscalation == nil || *s.AllowPrivilegeEscalation || s.Privileged == nil || *s.Privileged ||
					s.Capabilities == nil || !slices.Equal(s.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(s.Capabilities.Add) > 0 ||
					s.SeccompProfile == nil || s.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
					t.Errorf("%s %s/%s: securityContext = %+v", files, name, c.Name, s)
				}
				for _, m := range c.VolumeMounts {
					if m.MountPath != "/data" && m.MountPath != "/tmp" && !m.ReadOnly {
						t.Errorf("%s %s/%s: %s is writable", files, name, c.Name, m.MountPath)
					}
				}
			}
		}
	}
}

// secretVariables may only come from a Secret (valueFrom), never a value.
var secretVariables = []string{"GUICHET_DATABASE_URL", "GUICHET_SMTP_URL", "GUICHET_SMS_URL", "GUICHET_REGISTRATION_JWT_KEYS",
	"GUICHET_STAFF_KEY", "GUICHET_OIDC_KEY", "GUICHET_MAINTENANCE_BYPASS", "GUICHET_TLS_KEY",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"}

func TestNoSecretValue(t *testing.T) {
	for _, files := range []string{"sqlite.yaml", "postgres-ha.yaml"} {
		r := mustTemplate(t, []string{files}, brandsValues(t))
		for _, o := range r.objects {
			if _, ok := o.(*corev1.Secret); ok {
				t.Errorf("%s: the chart renders a Secret", files)
			}
		}
		for name, pod := range r.podSpecs() {
			for _, c := range pod.Containers {
				for _, e := range c.Env {
					if (slices.Contains(secretVariables, e.Name) || strings.HasPrefix(e.Name, "GUICHET_SERVICE_KEY_")) && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
						t.Errorf("%s %s: %s = %+v, want a secretKeyRef", files, name, e.Name, e)
					}
				}
			}
		}
		// A database URL or a key in clear text, wherever it would be.
		for _, s := range []string{"postgres://", "smtp://", "CHANGE-ME"} {
			if strings.Contains(r.text, s) {
				t.Errorf("%s: the rendered objects hold %q", files, s)
			}
		}
	}
}

// An invalid combination fails the render, with the reason.
func TestInvalidValuesFail(t *testing.T) {
	tag := map[string]any{"image": map[string]any{"tag": "v1"}, "config": map[string]any{"mail": "log"}}
	pg := func(extra map[string]any) map[string]any {
		return chartutil.CoalesceTables(extra, map[string]any{"image": map[string]any{"tag": "v1"}, "existingSecret": "guichet",
			"database": map[string]any{"type": "postgresql", "existingSecret": "db"}})
	}
	cases := []struct {
		name  string
		files []string
		extra map[string]any
		want  string
	}{
		{"SQLite with 3 replicas (testdata)", []string{"invalid-sqlite-replicas.yaml"}, nil,
			"replicaCount 3 needs PostgreSQL: SQLite serves one replica only"},
		{"SQLite autoscaled", nil, chartutil.CoalesceTables(map[string]any{"autoscaling": map[string]any{"enabled": true}}, tag),
			"autoscaling needs PostgreSQL"},
		{"SQLite without a claim", nil, chartutil.CoalesceTables(map[string]any{"persistence": map[string]any{"enabled": false}}, tag),
			"SQLite needs persistence.enabled=true"},
		{"PostgreSQL without its Secret", nil, chartutil.CoalesceTables(map[string]any{"database": map[string]any{"type": "postgresql"}}, tag),
			"database.type=postgresql needs database.existingSecret"},
		{"another database", nil, chartutil.CoalesceTables(map[string]any{"database": map[string]any{"type": "mysql"}}, tag),
			`at '/database/type': value must be one of 'sqlite', 'postgresql'`},
		{"no image tag", nil, nil, "set image.tag (or image.digest)"},
		{"no delivery", nil, map[string]any{"image": map[string]any{"tag": "v1"}}, "no delivery for email and SMS"},
		{"a secret in extraEnv", nil, pg(map[string]any{"extraEnv": map[string]any{"GUICHET_STAFF_KEY": "00"}}),
			"extraEnv.GUICHET_STAFF_KEY holds a secret"},
		{"a service key in extraEnv", nil, pg(map[string]any{"extraEnv": map[string]any{"GUICHET_SERVICE_KEY_BELAIR": "x"}}),
			"extraEnv.GUICHET_SERVICE_KEY_BELAIR holds a secret"},
		{"the chart's listener in extraEnv", nil, pg(map[string]any{"extraEnv": map[string]any{"GUICHET_ADMIN_ADDR": "off"}}),
			"extraEnv.GUICHET_ADMIN_ADDR is the chart's own setting"},
		{"an ingress without hosts", nil, pg(map[string]any{"ingress": map[string]any{"enabled": true}}),
			"ingress.enabled needs ingress.hosts"},
		{"an ingress without trusted proxies", nil, pg(map[string]any{"ingress": map[string]any{"enabled": true, "hosts": []any{"belair.insurer.example"}}}),
			"ingress.enabled needs config.trustedProxies (GUICHET_TRUSTED_PROXIES): set it to your ingress controller's pod CIDR"},
		{"the collector's token in extraEnv", nil, pg(map[string]any{"extraEnv": map[string]any{"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer x"}}),
			"extraEnv.OTEL_EXPORTER_OTLP_HEADERS holds a secret"},
		{"the collector's traces token in extraEnv", nil, pg(map[string]any{"extraEnv": map[string]any{"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "Authorization=Bearer x"}}),
			"extraEnv.OTEL_EXPORTER_OTLP_TRACES_HEADERS holds a secret"},
		{"a misspelt setting (values.schema.json)", nil, pg(map[string]any{"replicas": 3}),
			"additional properties 'replicas' not allowed"},
		{"a drain longer than the server takes (values.schema.json)", nil, pg(map[string]any{"config": map[string]any{"drainSeconds": 90}}),
			"drainSeconds"},
		{"a brand path out of the directory", nil, pg(map[string]any{"brands": map[string]any{"files": map[string]any{"../x.yaml": "id: x"}}}),
			`brands.files "../x.yaml"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := template(t, loadValues(t, tc.files, tc.extra))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
	// And the same values made valid render.
	if _, err := template(t, loadValues(t, []string{"invalid-sqlite-replicas.yaml"}, map[string]any{"replicaCount": 1})); err != nil {
		t.Fatalf("replicaCount 1 on SQLite: %v", err)
	}
	dev := map[string]any{"image": map[string]any{"tag": "v1"}, "extraEnv": map[string]any{"GUICHET_DEV": "1"}}
	if _, err := template(t, loadValues(t, nil, dev)); err != nil {
		t.Fatalf("GUICHET_DEV=1 (the dev mailbox) without a Secret: %v", err)
	}
}

// The brand files of config/brands, through the chart's ConfigMap and the
// Deployment's volume items, written where the pod would see them: the
// real binary (GUICHET_BINARY, make test-helm) loads them all.
func TestBrandFilesLoad(t *testing.T) {
	r := haValues(t)
	d := only[*appsv1.Deployment](t, r)
	c := d.Spec.Template.Spec.Containers[0]
	dir := envValue(t, c, "GUICHET_BRANDS_DIR")
	if mountPath(t, c, "brands") != dir {
		t.Fatalf("GUICHET_BRANDS_DIR %s is not the brands mount %s", dir, mountPath(t, c, "brands"))
	}
	if d.Spec.Template.Annotations["checksum/brands"] == "" {
		t.Error("no checksum/brands annotation: a brand change would not roll the pods")
	}
	vol := volume(t, d.Spec.Template.Spec, "brands").ConfigMap
	cm := only[*corev1.ConfigMap](t, r)
	if vol == nil || vol.Name != cm.Name {
		t.Fatalf("brands volume %+v is not the ConfigMap %s", vol, cm.Name)
	}
	// The kubelet's layout of a ConfigMap volume (its atomic writer): the
	// files in a timestamped folder, ..data a link to it, and a link at the
	// top for each first path element (belair.yaml, belair/).
	root := t.TempDir()
	const stamp = "..2026_11_29_10_00_00.000000001"
	for _, item := range vol.Items {
		content, ok := cm.Data[item.Key]
		if !ok {
			t.Fatalf("item key %s not in the ConfigMap", item.Key)
		}
		p := filepath.Join(root, stamp, filepath.FromSlash(item.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		top := strings.SplitN(item.Path, "/", 2)[0]
		if err := os.Symlink(filepath.Join("..data", top), filepath.Join(root, top)); err != nil && !errors.Is(err, os.ErrExist) {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(stamp, filepath.Join(root, "..data")); err != nil {
		t.Fatal(err)
	}
	if len(vol.Items) != len(brandsValues(t)["brands"].(map[string]any)["files"].(map[string]any)) {
		t.Errorf("%d items mounted, want every file of config/brands", len(vol.Items))
	}
	bin := os.Getenv("GUICHET_BINARY")
	if bin == "" {
		t.Skip("GUICHET_BINARY unset (make test-helm sets it to bin/guichet)")
	}
	cmd := exec.Command(bin, "check-config")
	cmd.Env = []string{"GUICHET_BRANDS_DIR=" + root, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	brands, _ := filepath.Glob("../../../config/brands/*.yaml")
	if want := fmt.Sprintf("%s: %d brands valid", root, len(brands)); err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("guichet check-config on the mounted files: %v\n%s\nwant %q", err, out, want)
	}
}

// named is the item of items called name (by nameOf); where says where.
func named[T any](t *testing.T, where string, items []T, name string, nameOf func(T) string) T {
	t.Helper()
	i := slices.IndexFunc(items, func(v T) bool { return nameOf(v) == name })
	if i < 0 {
		var zero T
		t.Fatalf("%s: no %T named %s", where, zero, name)
	}
	return items[i]
}

func volume(t *testing.T, pod corev1.PodSpec, name string) corev1.Volume {
	t.Helper()
	return named(t, "pod", pod.Volumes, name, func(v corev1.Volume) string { return v.Name })
}

func mountPath(t *testing.T, c corev1.Container, volume string) string {
	t.Helper()
	return named(t, c.Name, c.VolumeMounts, volume, func(m corev1.VolumeMount) string { return m.Name }).MountPath
}

func env(c corev1.Container, name string) (corev1.EnvVar, bool) {
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name })
	if i < 0 {
		return corev1.EnvVar{}, false
	}
	return c.Env[i], true
}

func envValue(t *testing.T, c corev1.Container, name string) string {
	t.Helper()
	return named(t, c.Name, c.Env, name, func(e corev1.EnvVar) string { return e.Name }).Value
}

func containerPort(t *testing.T, c corev1.Container, name string) int32 {
	t.Helper()
	return named(t, c.Name, c.Ports, name, func(p corev1.ContainerPort) string { return p.Name }).ContainerPort
}

func servicePort(t *testing.T, s *corev1.Service, name string) corev1.ServicePort {
	t.Helper()
	return named(t, "service "+s.Name, s.Spec.Ports, name, func(p corev1.ServicePort) string { return p.Name })
}

// selects fails unless selector is non-empty and matches labels (or, with
// not, does not match them).
func selects(t *testing.T, what string, selector, labels map[string]string, not ...bool) {
	t.Helper()
	match := len(selector) > 0
	for k, v := range selector {
		if labels[k] != v {
			match = false
		}
	}
	if want := len(not) == 0; match != want {
		t.Errorf("%s selector %v against labels %v: match %v, want %v", what, selector, labels, match, want)
	}
}

// The chart runs the image as the Dockerfile builds it (test/deploy keeps
// the Dockerfile's final stage equal to dist/guichet-image.tar): its user,
// its entrypoint (the chart gives only the arguments), its ports and its
// listeners' addresses.
func TestAgreesWithTheImage(t *testing.T) {
	b, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	final := text[strings.LastIndex(text, "\nFROM "):]
	d := only[*appsv1.Deployment](t, mustTemplate(t, []string{"sqlite.yaml"}, nil))
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	user := fmt.Sprintf("\nUSER %d:%d\n", *c.SecurityContext.RunAsUser, *c.SecurityContext.RunAsGroup)
	if !strings.Contains(final, user) || *pod.SecurityContext.RunAsUser != *c.SecurityContext.RunAsUser {
		t.Errorf("the chart runs as %q, not the image's user", user)
	}
	if !strings.Contains(final, "\nENTRYPOINT [\"/guichet\"]\n") || len(c.Command) != 0 {
		t.Errorf("command %q: the image's entrypoint /guichet should run", c.Command)
	}
	expose := fmt.Sprintf("\nEXPOSE %d/tcp %d/tcp\n", containerPort(t, c, "http"), containerPort(t, c, "admin"))
	if !strings.Contains(final, expose) {
		t.Errorf("ports: %q is not in the Dockerfile", expose)
	}
	for _, name := range []string{"GUICHET_ADDR", "GUICHET_ADMIN_ADDR", "GUICHET_DATA_DIR"} {
		if v := name + "=" + envValue(t, c, name); !strings.Contains(final, v) {
			t.Errorf("%s: not the image's environment", v)
		}
	}
}
