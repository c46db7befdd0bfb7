"""Evaluates every query of the Grafana dashboard and of the Prometheus rules against a running
Prometheus (scripts/test-observability.sh live) and fails when one returns no data, so no panel
is silently empty and no alert silently dead because a metric or a label value was renamed.

What "returns data" means here:
- a dashboard panel query, with the dashboard's variables set as a user would see them
  ($namespace = the test's namespace, $route = All, $__rate_interval = the test's window):
  the query itself returns at least one sample, AND each vector selector in it selects at least
  one series (so a branch hidden behind `or`, or a label value matched by a regex, is checked
  on its own);
- a dashboard variable `label_values(selector, label)`: the label has at least one value on the
  series the selector picks;
- a recording rule: its expression returns data and each selector in it selects a series; and
  Prometheus, which has loaded the rules, has recorded the series;
- an alerting rule: its expression without the thresholds, i.e. each vector selector it compares
  with a constant (this project's alerts compare recorded series), selects a series. The full
  expression is not required to return data: that would mean the alert fires.
Also: every rule group is loaded and no rule evaluates with an error.

Usage: observability_queries.py PROMETHEUS_URL DASHBOARD_JSON RULES_YAML
"""

import json
import re
import sys
import urllib.parse
import urllib.request

import yaml

# Grafana's variables as the test sets them.
VARIABLES = {
    "$__rate_interval": "5m",
    "$__interval": "5s",
    "$namespace": "storefront",
    "$route": ".*",
}

KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
    "bool", "offset", "inf", "nan", "atan2",
}
LABEL_LIST_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
# Followed by `by (...)` or `without (...)` rather than by their parenthesis.
AGGREGATIONS = {
    "sum", "avg", "count", "min", "max", "group", "stddev", "stdvar", "topk", "bottomk",
    "quantile", "count_values",
}
NUMBER_OR_DURATION = re.compile(r"(?:[0-9]+(?:ms|[smhdwy]))+|[0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?", re.I)
IDENT = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")


def selectors(expr):
    """The vector selectors (metric name plus matchers) of a PromQL expression, in order.

    A small scanner, not a parser: enough for the expressions of this project (functions,
    aggregations with by/without, binary operators, matchers, ranges, numbers, strings)."""
    found = []
    i, n = 0, len(expr)
    expect_label_list = False
    while i < n:
        c = expr[i]
        if c in "\"'`":
            end = expr.index(c, i + 1)
            while expr[end - 1] == "\\":
                end = expr.index(c, end + 1)
            i = end + 1
            continue
        if c == "[":
            i = expr.index("]", i) + 1
            continue
        if c == "(" and expect_label_list:
            i = expr.index(")", i) + 1
            expect_label_list = False
            continue
        if c.isdigit() or (c == "." and i + 1 < n and expr[i + 1].isdigit()):
            i = NUMBER_OR_DURATION.match(expr, i).end()
            continue
        m = IDENT.match(expr, i)
        if m:
            word = m.group(0)
            j = m.end()
            while j < n and expr[j].isspace():
                j += 1
            if word.lower() in KEYWORDS:
                expect_label_list = word.lower() in LABEL_LIST_KEYWORDS
                i = m.end()
                continue
            if (j < n and expr[j] == "(") or word in AGGREGATIONS:
                i = m.end()  # a function or an aggregation
                continue
            if j < n and expr[j] == "{":
                end = matcher_end(expr, j)
                found.append(expr[m.start():end])
                i = end
            else:
                found.append(word)
                i = m.end()
            continue
        if c == "{":
            end = matcher_end(expr, i)
            found.append(expr[i:end])
            i = end
            continue
        i += 1
    return found


def matcher_end(expr, start):
    i = start + 1
    while expr[i] != "}":
        if expr[i] in "\"'`":
            q = expr[i]
            i += 1
            while expr[i] != q:
                i += 2 if expr[i] == "\\" else 1
        i += 1
    return i + 1


def substitute(expr):
    for name in sorted(VARIABLES, key=len, reverse=True):
        expr = expr.replace(name, VARIABLES[name])
    expr = re.sub(r"\$\{(\w+)\}", lambda m: VARIABLES.get("$" + m.group(1), m.group(0)), expr)
    if "$" in expr:
        raise ValueError("unknown variable in %r" % expr)
    return expr


class Prometheus:
    def __init__(self, base):
        self.base = base.rstrip("/")
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def get(self, path, **params):
        url = "%s%s?%s" % (self.base, path, urllib.parse.urlencode(params, doseq=True))
        with self.opener.open(url, timeout=20) as resp:
            body = json.load(resp)
        if body.get("status") != "success":
            raise RuntimeError("%s: %s" % (path, body))
        return body["data"]

    def query(self, expr):
        """Number of samples an instant query returns (a scalar counts as one)."""
        data = self.get("/api/v1/query", query=expr)
        if data["resultType"] in ("scalar", "string"):
            return 1
        return len(data["result"])


class Report:
    def __init__(self):
        self.ok = 0
        self.failed = []

    def check(self, what, expr, count):
        if count > 0:
            self.ok += 1
        else:
            self.failed.append((what, expr))

    def error(self, what, expr, message):
        self.failed.append((what, "%s  -> %s" % (expr, message)))


def check_expr(prom, report, what, expr, whole=True):
    try:
        if whole:
            report.check(what, expr, prom.query(expr))
        for sel in selectors(expr):
            report.check("%s, selector" % what, sel, prom.query("group(%s)" % sel))
    except Exception as e:  # a query Prometheus rejects is a failure too
        report.error(what, expr, e)


def dashboard_queries(dashboard):
    def walk(panels):
        for p in panels:
            if p.get("type") == "row":
                yield from walk(p.get("panels") or [])
                continue
            for t in p.get("targets") or []:
                if t.get("expr"):
                    yield "panel %r %s" % (p.get("title"), t.get("refId")), t["expr"]

    yield from walk(dashboard.get("panels") or [])


def main():
    base, dashboard_file, rules_file = sys.argv[1:4]
    prom = Prometheus(base)
    report = Report()
    with open(dashboard_file) as fh:
        dashboard = json.load(fh)
    with open(rules_file) as fh:
        groups = yaml.safe_load(fh)["groups"]

    panels = 0
    for what, expr in dashboard_queries(dashboard):
        panels += 1
        try:
            expr = substitute(expr)
        except ValueError as e:
            report.error(what, expr, e)
            continue
        check_expr(prom, report, what, expr)

    for var in dashboard.get("templating", {}).get("list", []):
        if var.get("type") != "query":
            continue
        q = var["query"]["query"] if isinstance(var["query"], dict) else var["query"]
        m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", q)
        if not m:
            report.error("variable %s" % var["name"], q, "only label_values(selector, label) is supported")
            continue
        sel = substitute(m.group(1))
        values = prom.get("/api/v1/label/%s/values" % m.group(2), **{"match[]": sel})
        report.check("variable %s" % var["name"], q, len(values))

    rules = 0
    for g in groups:
        for r in g["rules"]:
            rules += 1
            if "record" in r:
                check_expr(prom, report, "recording rule %s" % r["record"], r["expr"])
                report.check("recorded series %s" % r["record"], r["record"],
                             prom.query("group(%s)" % r["record"]))
            else:
                check_expr(prom, report, "alert %s" % r["alert"], r["expr"], whole=False)

    loaded = prom.get("/api/v1/rules")["groups"]
    loaded_names = {g["name"] for g in loaded}
    for g in groups:
        report.check("rule group %s loaded" % g["name"], g["name"], int(g["name"] in loaded_names))
    for g in loaded:
        for r in g["rules"]:
            if r.get("health") == "err":
                report.error("rule %s" % r["name"], r["query"], r.get("lastError"))

    for what, expr in report.failed:
        print("EMPTY %s: %s" % (what, " ".join(expr.split())))
    print("%d panel queries and %d rules checked: %d queries with data, %d without"
          % (panels, rules, report.ok, len(report.failed)))
    print("observability: %d passed, %d failed" % (report.ok, len(report.failed)))
    sys.exit(1 if report.failed else 0)


if __name__ == "__main__":
    main()
