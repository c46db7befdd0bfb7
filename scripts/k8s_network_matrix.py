"""The allow-matrix of the bff's NetworkPolicies (issue 29), asserted on a rendering.

Usage: k8s_network_matrix.py OVERLAY_DIR RENDERED.yaml

Evaluates the rendered NetworkPolicies the way the API defines them (a connection is allowed
when no policy of its direction selects the pod, or when a rule of a selecting policy admits
it; rules are ORed, peers within a rule ORed, and a peer's namespaceSelector and podSelector
ANDed), for one connection at a time, and compares each verdict with the matrix below. The
parameters (namespaces, labels, CIDRs, the collector's port) come from the overlay's
NetworkParameters object, so the matrix holds for whatever values an overlay sets.

The Redis components (k8s/components/redis-*) add rows: each one's connections must be allowed
when the overlay uses it (the component and its network/ directory) and denied when it does
not, and the bff's Redis settings must agree with the paths the policies open (a rediss:// URL
on the TLS port, the sentinels on the sentinel port, the coordination tier's URL, cluster mode
on and no Sentinel with it).

Run by scripts/validate-k8s.sh with the validator's venv (PyYAML only).
"""

import ipaddress
import os
import re
import sys

import yaml

BFF_LABELS = {"app.kubernetes.io/name": "bff", "app.kubernetes.io/part-of": "storefront"}


def find_parameters(overlay):
    """The NetworkParameters object of the overlay, or of a kustomization it builds on."""
    seen = set()
    todo = [overlay]
    while todo:
        directory = os.path.realpath(todo.pop())
        if directory in seen:
            continue
        seen.add(directory)
        with open(os.path.join(directory, "kustomization.yaml")) as fh:
            kustomization = yaml.safe_load(fh) or {}
        for entry in kustomization.get("resources") or []:
            path = os.path.join(directory, entry)
            if os.path.isdir(path):
                todo.append(path)
            elif os.path.isfile(path):
                with open(path) as fh:
                    for doc in yaml.safe_load_all(fh):
                        if isinstance(doc, dict) and doc.get("kind") == "NetworkParameters":
                            return doc["spec"]
    raise SystemExit("%s: no NetworkParameters object among its resources" % overlay)


# The Redis components. Each one is a component (the Deployment's settings) and a plain
# kustomization of its NetworkPolicies (<component>/network), listed among the resources because
# only the first component can read the NetworkParameters (see k8s/README.md, "Redis").
REDIS_COMPONENTS = ("redis-cluster", "redis-coordination", "redis-sentinel", "redis-tls")
# A component whose paths must be open when it is used; redis-coordination's settings are also
# right for two tiers that are both managed endpoints (redis-tls's network), so its own network
# directory may be left out.
NEEDS_NETWORK = ("redis-cluster", "redis-sentinel", "redis-tls")


def redis_components(overlay):
    """(components, network directories) among REDIS_COMPONENTS that the overlay, or a
    kustomization it builds on, lists."""
    seen, components, networks = set(), set(), set()
    todo = [overlay]
    while todo:
        directory = os.path.realpath(todo.pop())
        if directory in seen:
            continue
        seen.add(directory)
        with open(os.path.join(directory, "kustomization.yaml")) as fh:
            kustomization = yaml.safe_load(fh) or {}
        for entry in kustomization.get("resources") or []:
            path = os.path.realpath(os.path.join(directory, entry))
            if os.path.basename(path) == "network" and os.path.basename(os.path.dirname(path)) in REDIS_COMPONENTS:
                networks.add(os.path.basename(os.path.dirname(path)))
            elif os.path.isdir(path):
                todo.append(path)
        for entry in kustomization.get("components") or []:
            name = os.path.basename(os.path.realpath(os.path.join(directory, entry)))
            if name in REDIS_COMPONENTS:
                components.add(name)
    return components, networks


# --- evaluation -----------------------------------------------------------------------------


def selects(selector, labels):
    """A LabelSelector against a label map (an empty selector selects everything)."""
    if selector is None:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise ValueError("unknown operator %r" % op)
    return True


class Endpoint:
    """The other side of a connection: a pod (namespace labels, pod labels, IP) or an address
    outside the cluster (ip only)."""

    def __init__(self, name, ip, namespace=None, pod=None):
        self.name = name
        self.ip = ipaddress.ip_address(ip)
        self.namespace = namespace  # the namespace's labels; None outside the cluster
        self.pod = pod or {}


def peer_matches(peer, other, policy_ns_labels):
    if "ipBlock" in peer:
        block = peer["ipBlock"]
        if other.ip not in ipaddress.ip_network(block["cidr"]):
            return False
        return not any(other.ip in ipaddress.ip_network(e) for e in block.get("except") or [])
    if other.namespace is None:
        return False  # selectors only match pods
    ns_selector = peer.get("namespaceSelector")
    pod_selector = peer.get("podSelector")
    if ns_selector is not None:
        if not selects(ns_selector, other.namespace):
            return False
    elif other.namespace != policy_ns_labels:
        return False  # a podSelector alone means the policy's own namespace
    return pod_selector is None or selects(pod_selector, other.pod)


def port_matches(rule_ports, port, protocol):
    if not rule_ports:
        return True
    for p in rule_ports:
        if p.get("protocol", "TCP") != protocol:
            continue
        if "port" not in p:
            return True
        if not isinstance(p["port"], int):
            raise ValueError("named port %r: the matrix needs numbers" % p["port"])
        if p["port"] <= port <= p.get("endPort", p["port"]):
            return True
    return False


def allowed(policies, direction, pod_ns_labels, pod_labels, other, port, protocol):
    key, peers_key = ("ingress", "from") if direction == "Ingress" else ("egress", "to")
    selecting = [p for p in policies
                 if selects(p["spec"].get("podSelector"), pod_labels)
                 and direction in p["spec"].get("policyTypes", ["Ingress"])]
    if not selecting:
        return True
    for policy in selecting:
        for rule in policy["spec"].get(key) or []:
            peers = rule.get(peers_key)
            peer_ok = not peers or any(peer_matches(peer, other, pod_ns_labels) for peer in peers)
            if peer_ok and port_matches(rule.get("ports"), port, protocol):
                return True
    return False


# --- the matrix -----------------------------------------------------------------------------


def first_host(cidr, offset=1):
    return str(ipaddress.ip_network(cidr)[offset])


def outside(*cidrs):
    """An address outside the cluster's ranges (documentation range 203.0.113.0/24)."""
    address = ipaddress.ip_address("203.0.113.7")
    assert not any(address in ipaddress.ip_network(c) for c in cidrs)
    return str(address)


def matrix(params, namespace, used=frozenset()):
    key = params["namespaceLabelKey"]
    pod_ip = first_host(params["podCIDR"], 10)

    def pod(name, ns, labels=None, offset=10):
        return Endpoint(name, first_host(params["podCIDR"], offset), {key: ns}, labels or {})

    gateway = pod("gateway proxy", params["gatewayNamespace"], {"app": "envoy"})
    monitoring = pod("prometheus", params["monitoringNamespace"], {"app": "prometheus"})
    cms_pod = pod("CMS pod", params["cmsNamespace"], {"app": "cms"})
    cms_external = Endpoint("CMS (external, its CIDR)", first_host(params["cmsCIDR"], 0))
    ops = pod("ops tooling", params["opsNamespace"], {"app": "toolbox"})
    kubelet = Endpoint("kubelet (node address)", first_host(params["nodeCIDR"], 5))
    neighbour = pod("another pod of the bff's namespace", namespace, {"app": "other"})
    other_bff = pod("another bff pod", namespace, BFF_LABELS)
    stranger = pod("a pod of another namespace", "somewhere-else", {"app": "x"})
    internet = Endpoint("an address on the internet", outside(params["podCIDR"], params["serviceCIDR"],
                                                               params["nodeCIDR"]))
    dns = pod("kube-dns", params["dnsNamespace"], {params["dnsPodLabelKey"]: params["dnsPodLabelValue"]})
    other_system = pod("another kube-system pod", params["dnsNamespace"], {"k8s-app": "metrics-server"})
    redis = pod("Redis", params["redisNamespace"], {params["redisPodLabelKey"]: params["redisPodLabelValue"]})
    not_redis = pod("another pod of Redis's namespace", params["redisNamespace"], {"app": "other"})
    collector = pod("OTLP collector", params["otelNamespace"],
                    {params["otelPodLabelKey"]: params["otelPodLabelValue"]})
    not_collector = pod("another pod of the collector's namespace", params["otelNamespace"], {"app": "x"})
    external_https = Endpoint("an external HTTPS upstream", outside(params["podCIDR"], params["serviceCIDR"]))
    pod_address = Endpoint("a pod address (by IP)", pod_ip)
    service_address = Endpoint("a Service address (by IP)", first_host(params["serviceCIDR"], 20))
    otlp = int(params["otlpPort"])

    ingress = [
        # (source, port, protocol, allowed)
        (gateway, 8080, "TCP", True),
        (gateway, 9090, "TCP", False),
        (monitoring, 9090, "TCP", True),
        (monitoring, 8080, "TCP", False),
        (cms_pod, 9090, "TCP", True),
        (cms_pod, 8080, "TCP", False),
        (cms_external, 9090, "TCP", True),
        (cms_external, 8080, "TCP", False),
        (ops, 9090, "TCP", True),
        (ops, 8080, "TCP", False),
        (kubelet, 9090, "TCP", True),
        (kubelet, 8080, "TCP", False),
        (neighbour, 8080, "TCP", False),
        (neighbour, 9090, "TCP", False),
        (other_bff, 8080, "TCP", False),
        (stranger, 8080, "TCP", False),
        (stranger, 9090, "TCP", False),
        (internet, 8080, "TCP", False),
        (internet, 9090, "TCP", False),
        (gateway, 8080, "UDP", False),
    ]
    egress = [
        # (destination, port, protocol, allowed)
        (dns, 53, "UDP", True),
        (dns, 53, "TCP", True),
        (dns, 80, "TCP", False),
        (other_system, 53, "UDP", False),
        (redis, 6379, "TCP", True),
        (redis, 6380, "TCP", False),
        (not_redis, 6379, "TCP", False),
        (collector, otlp, "TCP", True),
        (collector, 443, "TCP", False),
        (not_collector, otlp, "TCP", False),
        (external_https, 443, "TCP", True),
        (external_https, 80, "TCP", False),
        (external_https, 443, "UDP", False),
        (pod_address, 443, "TCP", False),
        (service_address, 443, "TCP", False),
        (stranger, 443, "TCP", False),
        (stranger, 8080, "TCP", False),
        (other_bff, 8080, "TCP", False),
    ]
    # The Redis components' connections, allowed exactly when the overlay uses the component.
    # An overlay without one has no parameter for it: the fallbacks stand for such a peer.
    label = params["redisPodLabelKey"]
    coordination = pod("coordination Redis", params["redisNamespace"],
                       {label: params.get("redisCoordinationPodLabelValue", "redis-coordination")})
    sentinel = pod("Redis sentinel", params["redisNamespace"],
                   {label: params.get("sentinelPodLabelValue", "redis-sentinel")})
    sentinel_port = int(params.get("sentinelPort", 26379))
    cluster_node = pod("Redis Cluster node", params["redisNamespace"],
                       {label: params.get("redisClusterPodLabelValue", "redis-cluster")})
    managed = Endpoint("a managed TLS Redis (redisTLSCIDR)",
                       first_host(params.get("redisTLSCIDR", "198.51.100.0/28"), 1))
    tls_port = int(params.get("redisTLSPort", 6380))
    egress += [
        (coordination, 6379, "TCP", "redis-coordination" in used),
        (coordination, 6380, "TCP", False),
        (sentinel, sentinel_port, "TCP", "redis-sentinel" in used),
        (sentinel, 6379, "TCP", False),
        (redis, sentinel_port, "TCP", False),
        (not_redis, sentinel_port, "TCP", False),
        (cluster_node, 6379, "TCP", "redis-cluster" in used),
        # The cluster bus is node to node only.
        (cluster_node, 16379, "TCP", False),
        (redis, 16379, "TCP", False),
        (managed, tls_port, "TCP", "redis-tls" in used),
        (managed, tls_port, "UDP", False),
        (managed, 6380 if tls_port == 6379 else 6379, "TCP", False),
        (pod_address, tls_port, "TCP", False),
        (service_address, tls_port, "TCP", False),
    ]
    return ingress, egress


def redis_ingress(params, namespace, used):
    """Who reaches the Redis pods, when they run in the bff's namespace (where its default deny
    covers them): (Redis pod, source, port, allowed). Elsewhere their own namespace's policies
    decide, which this rendering does not hold."""
    if params["redisNamespace"] != namespace:
        return []
    key, label = params["namespaceLabelKey"], params["redisPodLabelKey"]
    ns = {key: namespace}
    bff = Endpoint("the bff", first_host(params["podCIDR"], 11), ns, BFF_LABELS)
    neighbour = Endpoint("another pod of the namespace", first_host(params["podCIDR"], 12), ns, {"app": "other"})
    roles = [("Redis", {label: params["redisPodLabelValue"]}, 6379, True)]
    if "redis-coordination" in used:
        roles.append(("coordination Redis", {label: params["redisCoordinationPodLabelValue"]}, 6379, True))
    if "redis-cluster" in used:
        roles.append(("Redis Cluster node", {label: params["redisClusterPodLabelValue"]}, 6379, True))
    if "redis-sentinel" in used:
        roles.append(("Redis sentinel", {label: params["sentinelPodLabelValue"]}, int(params["sentinelPort"]), True))
    cases = []
    for name, labels, port, _ in roles:
        cases += [(name, labels, bff, port, True), (name, labels, neighbour, port, False),
                  (name, labels, bff, 8080, False)]
    return cases


def redis_settings(params, container, used):
    """The bff's Redis settings against the paths the policies open."""
    problems = []
    env = {e["name"]: e.get("value") for e in container.get("env") or []}
    urls = {k: env[k] for k in ("BFF__REDIS__URL", "BFF__REDIS__COORDINATION__URL") if env.get(k)}
    if "redis-coordination" in used and "BFF__REDIS__COORDINATION__URL" not in urls:
        problems.append("components/redis-coordination without BFF__REDIS__COORDINATION__URL")
    if "redis-tls" in used:
        for name, url in urls.items():
            m = re.match(r"^(rediss|valkeys)://[^/:]+:(\d+)(/|$)", url)
            if not m:
                problems.append("components/redis-tls: %s=%s is not rediss:// or valkeys:// with a port"
                                % (name, url))
            elif int(m.group(2)) != int(params["redisTLSPort"]):
                problems.append("components/redis-tls: %s's port %s is not redisTLSPort %s, which the "
                                "egress policy admits" % (name, m.group(2), params["redisTLSPort"]))
        # Only the managed endpoints, in redisTLSCIDR, are admitted on the TLS port: never the
        # cluster's own ranges, where it would open that port to every pod.
        managed = ipaddress.ip_network(params["redisTLSCIDR"])
        for cluster in ("podCIDR", "serviceCIDR"):
            if managed.overlaps(ipaddress.ip_network(params[cluster])):
                problems.append("redisTLSCIDR %s overlaps %s %s" % (managed, cluster, params[cluster]))
    if "redis-cluster" in used:
        if (env.get("BFF__REDIS__CLUSTER__ENABLED") or "").lower() != "true":
            problems.append("components/redis-cluster without BFF__REDIS__CLUSTER__ENABLED=true")
        if "redis-sentinel" in used or env.get("BFF__REDIS__SENTINEL__PRIMARY_NAME"):
            problems.append("components/redis-cluster with Sentinel: the bff refuses both")
        for name, url in urls.items():
            if not re.match(r"^(redis|rediss|valkey|valkeys)://[^/]+(/0?)?$", url):
                problems.append("components/redis-cluster: %s=%s is not a URL on database 0" % (name, url))
    if "redis-sentinel" in used:
        import tomllib

        if not env.get("BFF__REDIS__SENTINEL__PRIMARY_NAME"):
            problems.append("components/redis-sentinel without BFF__REDIS__SENTINEL__PRIMARY_NAME")
        try:
            sentinels = tomllib.loads("v = " + (env.get("BFF__REDIS__SENTINEL__SENTINELS") or ""))["v"]
        except tomllib.TOMLDecodeError:
            sentinels = None
        if not isinstance(sentinels, list) or not sentinels:
            problems.append("components/redis-sentinel: BFF__REDIS__SENTINEL__SENTINELS must be a TOML "
                            "array of host:port")
        else:
            for entry in sentinels:
                host, _, port = str(entry).rpartition(":")
                if not host or port != str(params["sentinelPort"]):
                    problems.append("components/redis-sentinel: sentinel %r is not host:%s (sentinelPort, "
                                    "which the egress policy admits)" % (entry, params["sentinelPort"]))
    return problems


def main(overlay, rendered):
    params = find_parameters(overlay)
    with open(rendered) as fh:
        docs = [d for d in yaml.safe_load_all(fh) if isinstance(d, dict)]
    policies = [d for d in docs if d.get("kind") == "NetworkPolicy"]
    failures = []
    if not policies:
        failures.append("no NetworkPolicy rendered")
    namespaces = {p["metadata"].get("namespace") for p in policies}
    bff = [d for d in docs if d.get("kind") == "Deployment" and d["metadata"]["name"] == "bff"]
    if len(namespaces) != 1 or not bff or bff[0]["metadata"].get("namespace") not in namespaces:
        failures.append("the NetworkPolicies and the bff must share one namespace: %s" % namespaces)
    namespace = next(iter(namespaces), None)
    # Every placeholder was replaced: none of the CAPITALS of networkpolicies.yaml remain.
    placeholder = re.compile(r"^[A-Z][A-Z0-9_]*_(NAMESPACE|CIDR|KEY|VALUE)$")
    for text in re.findall(r"[A-Z][A-Z0-9_]+", yaml.safe_dump(policies)):
        if placeholder.match(text):
            failures.append("placeholder %s left in the rendered policies" % text)
    # Default deny: one policy selects every pod with no rule in either direction.
    if not any(p["spec"].get("podSelector") == {} and not p["spec"].get("ingress")
               and not p["spec"].get("egress")
               and set(p["spec"].get("policyTypes") or []) == {"Ingress", "Egress"}
               for p in policies):
        failures.append("no default-deny policy (podSelector {}, Ingress and Egress, no rules)")

    components, networks = redis_components(overlay)
    for name in sorted(components & set(NEEDS_NETWORK) - networks):
        failures.append("components/%s is used without its NetworkPolicies: list "
                        "../../components/%s/network among the resources" % (name, name))
    for name in sorted(networks - components):
        failures.append("components/%s/network is listed without components/%s" % (name, name))
    # A component's connections are open exactly when its policies are rendered.
    used = networks
    pod_template = bff[0]["spec"]["template"]["metadata"]["labels"] if bff else BFF_LABELS
    ns_labels = {params["namespaceLabelKey"]: namespace}
    ingress, egress = matrix(params, namespace, used)
    rows = []
    for direction, cases in (("Ingress", ingress), ("Egress", egress)):
        for other, port, protocol, want in cases:
            got = allowed(policies, direction, ns_labels, pod_template, other, port, protocol)
            arrow = "%s -> bff" % other.name if direction == "Ingress" else "bff -> %s" % other.name
            rows.append("  %-5s %-62s %5d/%s" % ("allow" if got else "deny", arrow, port, protocol))
            if got != want:
                failures.append("%s %d/%s: %s, want %s" % (arrow, port, protocol,
                                                           "allowed" if got else "denied",
                                                           "allowed" if want else "denied"))
    for name, labels, source, port, want in redis_ingress(params, namespace, used):
        got = allowed(policies, "Ingress", ns_labels, labels, source, port, "TCP")
        arrow = "%s -> %s" % (source.name, name)
        rows.append("  %-5s %-62s %5d/%s" % ("allow" if got else "deny", arrow, port, "TCP"))
        if got != want:
            failures.append("%s %d/TCP: %s, want %s" % (arrow, port, "allowed" if got else "denied",
                                                       "allowed" if want else "denied"))
    bff_container = [c for c in bff[0]["spec"]["template"]["spec"]["containers"] if c["name"] == "bff"] if bff else []
    if bff_container:
        failures += redis_settings(params, bff_container[0], components)
    # The client address header is believed from the gateway's proxies only, never from the pod
    # range: a pod in a trusted range chooses its own rate-limit identity. Inside the pod range
    # a trusted CIDR is a proxy pool: at most 1/256 of the range (a /24 of a /16).
    pods = ipaddress.ip_network(params["podCIDR"])
    for cidr in str(params["trustedProxyCIDRs"]).split(","):
        trusted = ipaddress.ip_network(cidr.strip())
        if (trusted.version == pods.version and trusted.overlaps(pods)
                and trusted.num_addresses > pods.num_addresses // 256):
            failures.append("trustedProxyCIDRs %s covers much of the pod range %s: name the "
                            "gateway's proxy pool only" % (trusted, pods))
    # The probes reach the admin listener: every probe of the bff container uses port 9090.
    for container in bff[0]["spec"]["template"]["spec"]["containers"] if bff else []:
        names = {p["name"]: p["containerPort"] for p in container.get("ports") or []}
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            port = ((container.get(probe) or {}).get("httpGet") or {}).get("port")
            if names.get(port, port) != 9090:
                failures.append("%s uses port %r, which the kubelet rule does not admit" % (probe, port))
    return failures, rows


if __name__ == "__main__":
    overlay_dir, rendered_file = sys.argv[1], sys.argv[2]
    problems, table = main(overlay_dir, rendered_file)
    name = os.path.relpath(overlay_dir)
    if os.environ.get("MATRIX_VERBOSE"):
        print("\n".join(table))
    for problem in problems:
        print("FAIL %s: network matrix: %s" % (name, problem))
    if not problems:
        print("ok   %s: NetworkPolicy allow-matrix holds (%d connections checked)" % (name, len(table)))
    sys.exit(1 if problems else 0)
