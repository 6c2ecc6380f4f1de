{{/*
Topics and ACLs for a Strimzi-managed Kafka cluster. One list of the topics
vanon uses, each with its role, so the KafkaTopics and both KafkaUsers'
ACLs are derived from the same config and cannot drift apart.
*/}}

{{- define "vanon.strimzi.namespace" -}}
{{- .Values.strimzi.namespace | default .Release.Namespace }}
{{- end }}

{{- define "vanon.strimzi.userName" -}}
{{- .Values.strimzi.user.name | default (include "vanon.fullname" .) }}
{{- end }}

{{- define "vanon.strimzi.consumerName" -}}
{{- .Values.strimzi.consumer.name | default (printf "%s-consumer" (include "vanon.fullname" . | trunc 54 | trimSuffix "-")) }}
{{- end }}

{{- define "vanon.strimzi.consumerGroupPrefix" -}}
{{- .Values.strimzi.consumer.groupPrefix | default (printf "%s-" (include "vanon.strimzi.consumerName" .)) }}
{{- end }}

{{/*
The group id prefix of vanon's read_committed readers (restore of the
changelog, DP partials, the read-back of a release summary): each uses a
throwaway group it never joins or commits to, but librdkafka still looks up
that group's coordinator, which needs Describe (src/kafka/committed_reader.cc).
*/}}
{{- define "vanon.strimzi.readerGroupPrefix" -}}vanon-read-committed-{{- end }}

{{/*
The topics vanon uses, as a JSON list of {role, name, partitions, config,
managed}: `managed` ones get a KafkaTopic. Roles decide the ACLs.
*/}}
{{- define "vanon.strimzi.topics" -}}
{{- $c := .Values.config }}
{{- $t := .Values.strimzi.topics }}
{{- $p := int $t.partitions }}
{{- $changelog := (($c.state).changelog) | default dict }}
{{- $dp := $c.dp | default dict }}
{{- $topics := list (dict "role" "input" "name" $c.kafka.topics.input "partitions" $p "managed" $t.input) }}
{{- $topics = append $topics (dict "role" "anonymized" "name" $c.kafka.topics.anonymized "partitions" $p "managed" true) }}
{{- $topics = append $topics (dict "role" "releases" "name" $c.kafka.topics.releases "partitions" $p "managed" true) }}
{{- if $dp.enabled }}
{{- $topics = append $topics (dict "role" "counts" "name" $c.kafka.topics.counts "partitions" $p "managed" true) }}
{{- end }}
{{- $topics = append $topics (dict "role" "dlq" "name" $c.kafka.topics.dlq "partitions" $p "managed" true) }}
{{- if eq (($c.privacy).late_events | default "topic") "topic" }}
{{- $topics = append $topics (dict "role" "late" "name" $c.kafka.topics.late "partitions" $p "managed" true) }}
{{- end }}
{{- if hasKey $changelog "enabled" | ternary $changelog.enabled true }}
{{- $topics = append $topics (dict "role" "changelog" "name" ($changelog.topic | default "vanon.state.changelog") "partitions" $p "managed" true) }}
{{- end }}
{{- if and $dp.enabled ($dp.aggregation).topic }}
{{- /* vanon sends every partial to partition 0. */}}
{{- $topics = append $topics (dict "role" "dpPartials" "name" $dp.aggregation.topic "partitions" 1 "managed" true) }}
{{- end }}
{{- range $topics }}
{{- $cfg := deepCopy ($t.config | default dict) }}
{{- $cfg = mergeOverwrite $cfg (deepCopy (index ($t.overrides | default dict) .role | default dict)) }}
{{- if eq .role "changelog" }}
{{- /* The newest record of each key is the state: compaction only, kept forever. */}}
{{- $cfg = mergeOverwrite $cfg (dict "cleanup.policy" "compact" "retention.ms" -1 "retention.bytes" -1) }}
{{- end }}
{{- $_ := set . "config" $cfg }}
{{- end }}
{{- toJson $topics }}
{{- end }}

{{/* One ACL rule in Strimzi's form. */}}
{{- define "vanon.strimzi.acl" -}}
{{- $r := dict "type" .type "name" .name "patternType" (.pattern | default "literal") }}
{{- toJson (dict "resource" $r "operations" .ops) }}
{{- end }}

{{/*
vanon's ACLs, exactly what it does: read the input in its consumer group,
write the outputs, DLQ and late topics in transactions under its id prefix,
read back release summaries, read and write its internal topics, and create
them only when config.kafka.create_internal_topics asks it to.
*/}}
{{- define "vanon.strimzi.vanonAcls" -}}
{{- $k := .Values.config.kafka }}
{{- $create := hasKey $k "create_internal_topics" | ternary $k.create_internal_topics true }}
{{- $acls := list }}
{{- range include "vanon.strimzi.topics" . | fromJsonArray }}
{{- $ops := list "Describe" "Write" }}
{{- if eq .role "input" }}
{{- $ops = list "Describe" "Read" }}
{{- else if eq .role "releases" }}
{{- /* A release whose commit outcome was unknown is looked up read_committed. */}}
{{- $ops = list "Describe" "Read" "Write" }}
{{- else if eq .role "changelog" }}
{{- /* DescribeConfigs: vanon checks cleanup.policy=compact at start. */}}
{{- $ops = list "Describe" "DescribeConfigs" "Read" "Write" }}
{{- else if eq .role "dpPartials" }}
{{- $ops = list "Describe" "Read" "Write" }}
{{- end }}
{{- if and $create (has .role (list "changelog" "dpPartials")) }}
{{- $ops = append $ops "Create" }}
{{- end }}
{{- $acls = append $acls (include "vanon.strimzi.acl" (dict "type" "topic" "name" .name "ops" $ops) | fromJson) }}
{{- end }}
{{- $acls = append $acls (include "vanon.strimzi.acl" (dict "type" "group" "name" $k.group_id "ops" (list "Describe" "Read")) | fromJson) }}
{{- $acls = append $acls (include "vanon.strimzi.acl" (dict "type" "group" "name" (include "vanon.strimzi.readerGroupPrefix" .) "pattern" "prefix" "ops" (list "Describe")) | fromJson) }}
{{- $acls = append $acls (include "vanon.strimzi.acl" (dict "type" "transactionalId" "name" (printf "%s-" $k.transactional_id_prefix) "pattern" "prefix" "ops" (list "Describe" "Write")) | fromJson) }}
{{- toJson $acls }}
{{- end }}

{{/* The consumer's ACLs: the published topics and its own groups, nothing else. */}}
{{- define "vanon.strimzi.consumerAcls" -}}
{{- $acls := list }}
{{- range include "vanon.strimzi.topics" . | fromJsonArray }}
{{- if has .role (list "anonymized" "releases" "counts") }}
{{- $acls = append $acls (include "vanon.strimzi.acl" (dict "type" "topic" "name" .name "ops" (list "Describe" "Read")) | fromJson) }}
{{- end }}
{{- end }}
{{- $acls = append $acls (include "vanon.strimzi.acl" (dict "type" "group" "name" (include "vanon.strimzi.consumerGroupPrefix" .) "pattern" "prefix" "ops" (list "Describe" "Read")) | fromJson) }}
{{- toJson $acls }}
{{- end }}

{{/*
A KafkaTopic's metadata.name: the topic's own name when it is a valid
Kubernetes name, else a cleaned-up one with a hash (spec.topicName keeps
the real name).
*/}}
{{- define "vanon.strimzi.topicResourceName" -}}
{{- if and (regexMatch "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$" .) (le (len .) 253) }}
{{- . }}
{{- else }}
{{- printf "%s-%s" (regexReplaceAll "[^a-z0-9.-]" (lower .) "-" | trunc 200 | trimAll "-.") (sha256sum . | trunc 10) }}
{{- end }}
{{- end }}

{{/* Values that cannot work together fail the render with the fix. */}}
{{- define "vanon.strimzi.check" -}}
{{- $s := .Values.strimzi }}
{{- $user := include "vanon.strimzi.userName" . }}
{{- if not $s.cluster }}
{{- fail "strimzi.cluster is required when strimzi.enabled: the name of the Kafka resource the topics and users belong to" }}
{{- end }}
{{- if and $s.topics.enabled (lt (int $s.topics.partitions) 1) }}
{{- fail "strimzi.topics.partitions is required when strimzi.topics.enabled: the input topic's partition count (the changelog must have exactly as many)" }}
{{- end }}
{{- if eq $s.user.authentication "scram-sha-512" }}
{{- if not (and .Values.kafka.sasl.enabled (eq .Values.kafka.sasl.mechanism "SCRAM-SHA-512")) }}
{{- fail "strimzi.user.authentication=scram-sha-512 needs kafka.sasl.enabled with mechanism SCRAM-SHA-512" }}
{{- end }}
{{- if ne .Values.kafka.sasl.username $user }}
{{- fail (printf "kafka.sasl.username must be %s, the KafkaUser's name (strimzi.user.name), or the ACLs name another principal" $user) }}
{{- end }}
{{- else }}
{{- if or .Values.kafka.sasl.enabled (not (and .Values.kafka.tls.enabled .Values.kafka.tls.certKey)) }}
{{- fail (printf "strimzi.user.authentication=%s needs kafka.tls.enabled with a client certificate (kafka.tls.certKey) and kafka.sasl off: the principal is CN=%s" $s.user.authentication $user) }}
{{- end }}
{{- end }}
{{- if and $s.consumer.enabled (eq (include "vanon.strimzi.consumerName" .) $user) }}
{{- fail "strimzi.consumer.name must differ from vanon's KafkaUser name" }}
{{- end }}
{{- $prefix := include "vanon.strimzi.consumerGroupPrefix" . }}
{{- $readers := include "vanon.strimzi.readerGroupPrefix" . }}
{{- $group := .Values.config.kafka.group_id }}
{{- if and $s.consumer.enabled (or (hasPrefix $prefix $group) (hasPrefix $prefix $readers) (hasPrefix $readers $prefix)) }}
{{- fail (printf "strimzi.consumer.groupPrefix %q overlaps vanon's groups (%q, %q*): the consumer could join them; choose another" $prefix $group $readers) }}
{{- end }}
{{- end }}
