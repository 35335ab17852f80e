{{/* The chart name, unless nameOverride. */}}
{{- define "gatewright.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object name: the release name, with the chart name in front unless the
release name already contains it.
*/}}
{{- define "gatewright.fullname" -}}
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

{{/* Labels of every object of the release. */}}
{{- define "gatewright.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "gatewright.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels of the controller's Deployment, pods and the objects that serve them. */}}
{{- define "gatewright.controllerLabels" -}}
{{ include "gatewright.labels" . }}
app.kubernetes.io/component: controller
{{- end }}

{{/* Labels that select the controller's pods. */}}
{{- define "gatewright.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gatewright.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: controller
{{- end }}

{{/* The controller's ServiceAccount. */}}
{{- define "gatewright.serviceAccountName" -}}
{{- default (printf "%s-controller" (include "gatewright.fullname" .)) .Values.serviceAccount.name }}
{{- end }}

{{/* The namespace of global GatewayClassConfigs and of the leader-election Lease. */}}
{{- define "gatewright.controllerNamespace" -}}
{{- default .Release.Namespace .Values.controllerNamespace }}
{{- end }}

{{/* The image reference: the digest pins it when given. */}}
{{- define "gatewright.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}
