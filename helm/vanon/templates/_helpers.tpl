{{/* Names, labels and the rendered vanon config shared by the templates. */}}

{{- define "vanon.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Kubernetes names are limited to 63 characters. */}}
{{- define "vanon.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "vanon.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "vanon.selectorLabels" -}}
app.kubernetes.io/name: {{ include "vanon.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "vanon.labels" -}}
helm.sh/chart: {{ include "vanon.chart" . }}
{{ include "vanon.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: anonymizer
{{- end }}

{{- define "vanon.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "vanon.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "vanon.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/* The HTTP port, taken from config.http.listen so there is one source. */}}
{{- define "vanon.httpPort" -}}
{{- regexFind "[0-9]+$" .Values.config.http.listen }}
{{- end }}

{{- define "vanon.configDir" -}}/etc/vanon{{- end }}
{{- define "vanon.tlsDir" -}}/etc/vanon-kafka-tls{{- end }}

{{/*
librdkafka properties for both clients: the user's config.kafka.properties
plus what the kafka.tls / kafka.sasl switches imply. The switches win, so a
stray security.protocol cannot silently turn TLS off.
*/}}
{{- define "vanon.kafkaProperties" -}}
{{- $props := deepCopy (default (dict) .Values.config.kafka.properties) }}
{{- $tlsDir := include "vanon.tlsDir" . }}
{{- if .Values.kafka.tls.enabled }}
{{- $_ := set $props "security.protocol" "SSL" }}
{{- $_ := set $props "ssl.ca.location" (printf "%s/%s" $tlsDir .Values.kafka.tls.caKey) }}
{{- if .Values.kafka.tls.certKey }}
{{- $_ := set $props "ssl.certificate.location" (printf "%s/%s" $tlsDir .Values.kafka.tls.certKey) }}
{{- $_ := set $props "ssl.key.location" (printf "%s/%s" $tlsDir .Values.kafka.tls.keyKey) }}
{{- end }}
{{- end }}
{{- if .Values.kafka.sasl.enabled }}
{{- $_ := set $props "security.protocol" "SASL_SSL" }}
{{- $_ := set $props "sasl.mechanism" .Values.kafka.sasl.mechanism }}
{{- $_ := set $props "sasl.username" (required "kafka.sasl.username is required when kafka.sasl.enabled" .Values.kafka.sasl.username) }}
{{- end }}
{{- toJson $props }}
{{- end }}

{{/*
"true" when vanon writes internal topics (the state changelog, on unless
switched off, or the DP partials of dp.aggregation): every value it writes
there is sealed, so it needs the state key ring (security.state_keys_env).
vanon's own rule (config::WritesInternalTopics), restated for the chart.
*/}}
{{- define "vanon.writesInternalTopics" -}}
{{- $changelog := ((.Values.config.state).changelog) | default dict }}
{{- $dp := .Values.config.dp | default dict }}
{{- if or (hasKey $changelog "enabled" | ternary $changelog.enabled true) (and $dp.enabled ($dp.aggregation).topic) }}true{{ end }}
{{- end }}

{{/*
The container's environment variables the chart sets must not collide:
two secrets in one variable would hand vanon the wrong key.
*/}}
{{- define "vanon.checkEnvNames" -}}
{{- $names := list "POD_NAME" "VANON_INSTANCE_ID" .Values.config.security.hmac_key_env }}
{{- if .Values.kafka.sasl.enabled }}
{{- $names = append $names "VANON_KAFKA_SASL_PASSWORD" }}
{{- end }}
{{- if has .Values.config.security.state_keys_env $names }}
{{- fail (printf "config.security.state_keys_env %s is already set by the chart (HMAC key, pod name or SASL password): choose another name" .Values.config.security.state_keys_env) }}
{{- end }}
{{- if has .Values.config.security.hmac_key_env (list "POD_NAME" "VANON_INSTANCE_ID" "VANON_KAFKA_SASL_PASSWORD") }}
{{- fail (printf "config.security.hmac_key_env %s is already set by the chart: choose another name" .Values.config.security.hmac_key_env) }}
{{- end }}
{{- end }}

{{/* vanon.yaml as mounted into the pods: no secret ever appears here. */}}
{{- define "vanon.config" -}}
{{- $cfg := deepCopy .Values.config }}
{{- $_ := set $cfg.kafka "properties" (include "vanon.kafkaProperties" . | fromJson) }}
{{- toYaml $cfg }}
{{- end }}

{{/*
Command-line overrides that differ per pod or carry secrets. Kubernetes
expands $(VAR) from the container's environment. A whole map is replaced
because librdkafka property names contain dots, which an override path
would split.
*/}}
{{- define "vanon.args" -}}
- run
- --config
- {{ include "vanon.configDir" . }}/vanon.yaml
{{- if .Values.kafka.staticMembership }}
{{- $cp := deepCopy (default (dict) .Values.config.kafka.consumer_properties) }}
{{- $_ := set $cp "group.instance.id" "$(POD_NAME)" }}
- --set
- {{ printf "kafka.consumer_properties=%s" (toJson $cp) | quote }}
{{- end }}
{{- if .Values.kafka.sasl.enabled }}
{{- $props := include "vanon.kafkaProperties" . | fromJson }}
{{- $pairs := list }}
{{- range $k, $v := $props }}
{{- $pairs = append $pairs (printf "%s: %s" (toJson $k) (toJson $v)) }}
{{- end }}
{{- $pairs = append $pairs "\"sasl.password\": '$(VANON_KAFKA_SASL_PASSWORD)'" }}
- --set
- {{ printf "kafka.properties={%s}" (join ", " $pairs) | quote }}
{{- end }}
{{- end }}
