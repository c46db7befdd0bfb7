"""The bff's integration tests that start a Redis server of their own.

They already test the shared tier with a real Redis, so the Redis pass of `make test`
(scripts/test-with-redis.sh) leaves them out: each runs in one pass only.

A test starts its own Redis when its body calls `RedisServer::start` (or `ClusterServer::start`,
its own cluster), or calls a function of the same file that does (followed to a fixed point). Prints, for the test binaries of the folder given,
one line each: `<binary> all` (every test starts its own Redis), `<binary> none`, or
`<binary> some <test> <test> ...` (names as libtest prints them, `<module>::<fn>` in tests/it/).

Usage: python3 scripts/lib/own_redis_tests.py bff/tests
"""

import pathlib
import re
import sys

FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
TEST_ATTR = re.compile(r"#\[(?:tokio::)?test\b[^\]]*\]\s*(?:#\[[^\]]*\]\s*)*$")


def functions(text):
    """(name, is_test, body) for every fn of the file, its body found by matching braces."""
    found = []
    for match in FN.finditer(text):
        open_at = text.find("{", match.end())
        if open_at < 0:
            continue
        # A declaration without a body (in a trait) ends with ';' before any '{'.
        semicolon = text.find(";", match.end())
        if 0 <= semicolon < open_at:
            continue
        depth, end = 0, open_at
        for end in range(open_at, len(text)):
            if text[end] == "{":
                depth += 1
            elif text[end] == "}":
                depth -= 1
                if depth == 0:
                    break
        before = text[: match.start()].rstrip()
        found.append((match.group(1), bool(TEST_ATTR.search(before)), text[open_at : end + 1]))
    return found


def own_redis(text):
    fns = functions(text)
    starts = {name for name, _, body in fns if re.search(r"\b(?:Redis|Cluster)Server::start", body)}
    while True:
        more = {
            name
            for name, _, body in fns
            if name not in starts and any(re.search(r"\b%s\s*\(" % re.escape(s), body) for s in starts)
        }
        if not more:
            break
        starts |= more
    tests = [name for name, is_test, _ in fns if is_test]
    return tests, [name for name in tests if name in starts]


def binaries(folder):
    """{binary: [(test name as libtest prints it, starts its own Redis)]} for the test binaries of a
    crate's tests/ folder: each tests/<name>.rs, and each tests/<name>/main.rs whose sibling
    files are its modules (tests named <module>::<fn>; common/ holds no tests)."""
    found = {}
    root = pathlib.Path(folder)
    for path in sorted(root.glob("*.rs")):
        tests, own = own_redis(path.read_text())
        found[path.stem] = [(name, name in own) for name in tests]
    for main_rs in sorted(root.glob("*/main.rs")):
        entries = []
        for module in sorted(main_rs.parent.glob("*.rs")):
            if module.name == "main.rs":
                continue
            tests, own = own_redis(module.read_text())
            entries += [("%s::%s" % (module.stem, name), name in own) for name in tests]
        found[main_rs.parent.name] = entries
    return found


def main(folder):
    found = {name: tests for name, tests in binaries(folder).items() if tests}
    # A test left out by name (libtest's --skip with --exact) is left out of every test binary of
    # the run: no other binary that runs may hold a test of that name.
    for binary, tests in found.items():
        for name, own in tests:
            clash = [b for b, t in found.items() if b != binary and any(n == name for n, _ in t)]
            if own and clash:
                sys.exit("own_redis_tests: %s's %s shares its name with a test in %s" % (binary, name, ", ".join(clash)))
    for binary, tests in found.items():
        own = [name for name, starts in tests if starts]
        if len(own) == len(tests):
            print(binary, "all")
        elif not own:
            print(binary, "none")
        else:
            print(binary, "some", *own)


if __name__ == "__main__":
    main(sys.argv[1])
