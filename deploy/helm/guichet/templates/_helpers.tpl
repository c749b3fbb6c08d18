{{/* The release's name for every object: the release name, with "guichet" appended unless it holds it. */}}
{{- define "guichet.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The labels that select the pods (Service, PDB, NetworkPolicy, ServiceMonitor through the Service). */}}
{{- define "guichet.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The migration Job's pods: not the Service's (no "name: guichet"), the migration NetworkPolicy's. */}}
{{- define "guichet.migrateSelectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}-migrate
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: migrate
{{- end -}}

{{- define "guichet.labels" -}}
{{ include "guichet.selectorLabels" . }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "guichet.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "guichet.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{- define "guichet.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository .Values.image.tag -}}
{{- end -}}
{{- end -}}

{{/* The pods' replica count as the chart sees it: autoscaling's maximum when on. */}}
{{- define "guichet.maxReplicas" -}}
{{- if .Values.autoscaling.enabled -}}
{{- .Values.autoscaling.maxReplicas | int -}}
{{- else -}}
{{- .Values.replicaCount | int -}}
{{- end -}}
{{- end -}}

{{/* The brands directory in the pods (GUICHET_BRANDS_DIR). */}}
{{- define "guichet.brandsDir" -}}/etc/guichet/brands{{- end -}}

{{- define "guichet.brandsConfigMap" -}}
{{- if .Values.brands.existingConfigMap -}}
{{- .Values.brands.existingConfigMap -}}
{{- else if .Values.brands.files -}}
{{- printf "%s-brands" (include "guichet.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* A brand file's path as a ConfigMap key ("/" is not allowed in one). */}}
{{- define "guichet.brandKey" -}}
{{- . | replace "/" "__" -}}
{{- end -}}

{{/*
The variables that hold secrets (README "Configuration"): never a plain
value in the chart, only from a Secret of the operator's. The chart's own
variables (listeners, directories) are refused in extraEnv too. The OTLP
headers carry the trace collector's token.
*/}}
{{- define "guichet.secretVariables" -}}
GUICHET_DATABASE_URL GUICHET_SMTP_URL GUICHET_SMS_URL GUICHET_REGISTRATION_JWT_KEYS GUICHET_STAFF_KEY GUICHET_OIDC_KEY GUICHET_MAINTENANCE_BYPASS GUICHET_TLS_KEY OTEL_EXPORTER_OTLP_HEADERS OTEL_EXPORTER_OTLP_TRACES_HEADERS
{{- end -}}
{{- define "guichet.chartVariables" -}}
GUICHET_ADDR GUICHET_ADMIN_ADDR GUICHET_DATA_DIR GUICHET_BRANDS_DIR
{{- end -}}

{{/*
guichet.validate fails the render on a combination that cannot work, with
the reason and the fix. Included by every template that renders pods.
*/}}
{{- define "guichet.validate" -}}
{{- $v := .Values -}}
{{- if not (or $v.image.tag $v.image.digest) -}}
{{- fail "guichet: set image.tag (or image.digest): the tag you pushed dist/guichet-image.tar under (README \"Kubernetes\")" -}}
{{- end -}}
{{- if not (has $v.database.type (list "sqlite" "postgresql")) -}}
{{- fail (printf "guichet: database.type %q: sqlite or postgresql" $v.database.type) -}}
{{- end -}}
{{- if eq $v.database.type "sqlite" -}}
{{- if $v.autoscaling.enabled -}}
{{- fail "guichet: autoscaling needs PostgreSQL: SQLite is one pod's file; set database.type=postgresql and database.existingSecret" -}}
{{- end -}}
{{- if gt ($v.replicaCount | int) 1 -}}
{{- fail (printf "guichet: replicaCount %d needs PostgreSQL: SQLite serves one replica only; set database.type=postgresql and database.existingSecret, or replicaCount=1" ($v.replicaCount | int)) -}}
{{- end -}}
{{- if not $v.persistence.enabled -}}
{{- fail "guichet: SQLite needs persistence.enabled=true (a PersistentVolumeClaim for /data): without it the database is lost with the pod" -}}
{{- end -}}
{{- else -}}
{{- if not $v.database.existingSecret -}}
{{- fail "guichet: database.type=postgresql needs database.existingSecret: the name of your Secret holding GUICHET_DATABASE_URL (database.existingSecretKey)" -}}
{{- end -}}
{{- end -}}
{{- if not (or $v.existingSecret (eq (lower (toString $v.config.mail)) "log") (has (lower (toString (index $v.extraEnv "GUICHET_DEV" | default ""))) (list "1" "true" "yes" "on"))) -}}
{{- fail "guichet: no delivery for email and SMS: set existingSecret (your Secret with GUICHET_SMTP_URL and GUICHET_SMS_URL), or config.mail=log to log notifications instead (the server refuses to start without one)" -}}
{{- end -}}
{{- if and $v.autoscaling.enabled (lt ($v.autoscaling.maxReplicas | int) ($v.autoscaling.minReplicas | int)) -}}
{{- fail "guichet: autoscaling.maxReplicas is below autoscaling.minReplicas" -}}
{{- end -}}
{{- $secret := splitList " " (include "guichet.secretVariables" .) -}}
{{- $own := splitList " " (include "guichet.chartVariables" .) -}}
{{- range $name, $_ := $v.extraEnv -}}
{{- if or (has $name $secret) (hasPrefix "GUICHET_SERVICE_KEY_" $name) -}}
{{- fail (printf "guichet: extraEnv.%s holds a secret: put it in your Secret named by existingSecret (database.existingSecret for the database URL), never in values" $name) -}}
{{- end -}}
{{- if has $name $own -}}
{{- fail (printf "guichet: extraEnv.%s is the chart's own setting (the listeners and directories of the pod)" $name) -}}
{{- end -}}
{{- end -}}
{{- if and $v.brands.files $v.brands.existingConfigMap -}}
{{- fail "guichet: brands.files or brands.existingConfigMap, not both" -}}
{{- end -}}
{{- range $path, $_ := $v.brands.files -}}
{{- if or (not (regexMatch "^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)?$" $path)) (contains "__" $path) (contains ".." $path) -}}
{{- fail (printf "guichet: brands.files %q: a file name or <brand>/<file> (lower case letters, digits, '.', '-', '_')" $path) -}}
{{- end -}}
{{- end -}}
{{- if and $v.ingress.enabled (not $v.ingress.hosts) -}}
{{- fail "guichet: ingress.enabled needs ingress.hosts: every brand host and the console host" -}}
{{- end -}}
{{- if and $v.ingress.enabled (not $v.config.trustedProxies) -}}
{{- fail "guichet: ingress.enabled needs config.trustedProxies (GUICHET_TRUSTED_PROXIES): set it to your ingress controller's pod CIDR (e.g. 10.244.0.0/16), else every client shares the controller's address and one client's rate limit or hashing share blocks them all" -}}
{{- end -}}
{{- end -}}

{{/* The pods' security context and the container's: from values, checked by deploy/helm/test. */}}
{{- define "guichet.podSecurity" -}}
{{- with .Values.imagePullSecrets -}}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{ end -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}

{{/* The database URL from the operator's Secret (PostgreSQL). */}}
{{- define "guichet.databaseEnv" -}}
- name: GUICHET_DATA_DIR
  value: /data
{{- if eq .Values.database.type "postgresql" }}
- name: GUICHET_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.existingSecret }}
      key: {{ .Values.database.existingSecretKey }}
{{- end }}
{{- end -}}

{{/* The NetworkPolicies' egress rules: DNS, then networkPolicy.egress. */}}
{{- define "guichet.egress" -}}
# DNS.
- ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
{{ toYaml .Values.networkPolicy.egress }}
{{- end -}}

{{/* The writable paths: /tmp always, /data when it is not the claim. */}}
{{- define "guichet.scratchVolumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: 1Gi
{{- end -}}
