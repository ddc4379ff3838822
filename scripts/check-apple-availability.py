#!/usr/bin/env python3
"""Finds Swift standard library API newer than the Apple platforms Waypost declares.

Package.swift declares macOS 14 and iOS 17, but Linux never checks Apple availability: a call to
an API of macOS 15 compiles here and fails on a Mac (085dd55 mended `String(validating:as:)`,
then `TaskExecutor`). No macOS SDK is on this machine, so this reads what the compiler would
have: the toolchain's module interfaces (Swift, _Concurrency, Synchronization, …), whose
declarations carry `@available(macOS …, iOS …)`. It lists the types, initializers, functions and
properties introduced after the declared versions, then looks for their use in the package's
Swift code (Sources, Tests, Benchmarks, Examples, Fuzz) outside comments and strings, and outside code
that `#available`/`@available` already guards for both platforms.

A name is looked for only when the use can be told from the text: a type by its name, an
initializer or function by a label its older overloads lack (or by its name when it has none),
a property by `.name` when no older declaration shares the name; a name the package declares
itself is left out. What it cannot see — Foundation (no interface ships on Linux), an overload
chosen by argument type alone — still needs a build on a Mac.

Usage: scripts/check-apple-availability.py [--self-test]. Exit 0: no unguarded use; 1: uses
listed as path:line; 70: the interfaces are missing or the self-test failed.
"""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

MINIMUM = {"macOS": (14, 0), "iOS": (17, 0)}  # Package.swift's platforms
MODULES = ["Swift", "_Concurrency", "Synchronization", "_StringProcessing", "RegexBuilder",
           "Observation", "Distributed"]
IMPLICIT = {"Swift", "_Concurrency", "_StringProcessing"}  # seen without an import
CODE_FOLDERS = ["Sources", "Tests", "Benchmarks", "Examples", "Fuzz"]

AVAILABLE = re.compile(r"[@#]available\(([^)]*)\)")
DECL = re.compile(r"\b(func|init|var|let|struct|class|enum|protocol|actor|typealias|extension|subscript|case)\b"
                  r"[?!]?\s*([A-Za-z_][\w.]*)?")


def versions(arguments):
    """{platform: (major, minor)} named in one @available/#available argument list."""
    found = {}
    for platform in MINIMUM:
        m = re.search(r"\b%s\s+(\d+)(?:\.(\d+))?" % platform, arguments) or \
            re.search(r"\b%s\s*,\s*introduced:\s*(\d+)(?:\.(\d+))?" % platform, arguments)
        if m:
            found[platform] = (int(m.group(1)), int(m.group(2) or 0))
    return found


def newer(required):
    """The platforms on which `required` is above Waypost's minimum."""
    return {p: v for p, v in required.items() if v > MINIMUM[p]}


def merged(outer, inner):
    result = dict(outer)
    for platform, version in inner.items():
        result[platform] = max(result.get(platform, (0, 0)), version)
    return result


def split_parameters(text):
    """Top-level comma-separated pieces of a parameter list."""
    pieces, depth, current = [], 0, ""
    for ch in text:
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        if ch == "," and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        pieces.append(current)
    return pieces


def labels(line, after):
    """The argument labels of the parameter list that opens after index `after` of `line`:
    [label] (`_` for none), None when the list does not close on this line."""
    start = line.find("(", after)
    if start < 0:
        return None
    depth = 0
    for end in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[end], 0)
        if depth == 0:
            break
    else:
        return None
    result = []
    for piece in split_parameters(line[start + 1:end]):
        head = piece.split(":")[0].split()
        if head:
            result.append(head[0])
    return result


def interface_declarations(path, public_only=False):
    """(kind, scope, name, labels, required) for each public declaration of an interface file,
    and the words older declarations use as tuple labels (`components.attoseconds` is one)."""
    declarations, scopes, pending, depth, tuple_labels = [], [], {}, 0, set()
    for raw in Path(path).read_text(errors="replace").splitlines():
        line = raw.strip()
        for m in AVAILABLE.finditer(line):
            pending = merged(pending, versions(m.group(1)))
        code = AVAILABLE.sub("", line)
        inside_body = any(s[0] is None for s in scopes)
        m = DECL.search(code) if not inside_body else None
        opened = None
        if m and not code.startswith(("//", "#")):
            kind, name = m.group(1), (m.group(2) or "")
            if public_only and kind != "extension" and not re.search(r"\b(public|open)\b", code[:m.start()]):
                kind = "hidden"  # a package's own internals: opens a scope, declares nothing
            required = merged(scopes[-1][2] if scopes else {}, pending)
            scope = scopes[-1][0] if scopes else ""
            if not newer(required) and kind in ("func", "var", "let", "subscript"):
                result_type = code.split("->", 1)[1] if "->" in code else code.partition(":")[2] if kind != "func" else ""
                tuple_labels.update(re.findall(r"[(,]\s*(\w+)\s*:", result_type))
            if kind == "extension":
                opened = (name.split(".")[-1], required)
            elif kind in ("struct", "class", "enum", "protocol", "actor"):
                declarations.append(("type", scope, name, None, required))
                opened = (name, required)
            elif kind == "typealias":
                declarations.append(("type", scope, name, None, required))
            elif kind in ("func", "init"):
                if kind == "init":
                    name = "init"
                declarations.append((kind, scope, name, labels(code, m.end()), required))
                opened = (None, required)  # a body: its contents are not members
            elif kind in ("var", "let"):
                declarations.append(("var", scope, name, None, required))
                opened = (None, required)
            elif kind == "hidden":
                opened = (None, required) if not re.search(r"\b(struct|class|enum|actor|protocol)\b", code) \
                    else (m.group(2) or "", required)
            else:
                opened = (None, required)
            pending = {}
        elif line and not line.startswith("@"):
            pending = {}
        for ch in code:
            if ch == "{":
                depth += 1
                scopes.append((opened[0], depth, opened[1]) if opened else (None, depth, {}))
                opened = None
            elif ch == "}":
                if scopes and scopes[-1][1] == depth:
                    scopes.pop()
                depth -= 1
    return declarations, tuple_labels


def strip_comments_and_strings(text):
    """`text` with comments and string literals blanked, line structure kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:j]))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append("".join(c if c == "\n" else " " for c in text[i:j]))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + " " * max(0, j - i - 1))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def guarded_lines(code):
    """For each line (1-based index), the platforms' versions guaranteed there by an enclosing
    `@available` declaration, `if #available` block or preceding `guard #available`."""
    lines = code.split("\n")
    result, scopes, pending = [{}] * (len(lines) + 1), [{}], {}
    for number, line in enumerate(lines, start=1):
        here = scopes[-1]
        for m in AVAILABLE.finditer(line):
            found = versions(m.group(1))
            if "guard" in line[:m.start()]:
                scopes[-1] = here = merged(here, found)
            else:
                pending = merged(pending, found)
        result[number] = merged(here, pending)
        for ch in line:
            if ch == "{":
                scopes.append(merged(scopes[-1], pending))
                pending = {}
            elif ch == "}" and len(scopes) > 1:
                scopes.pop()
    return result


def patterns(declarations, tuple_labels):
    """[(description, word, regex, required, module)] for what can be told apart by its text;
    `word` is in any text the regex matches."""
    older = {"type": set(), "var": set(tuple_labels), "func": {}, "init": {}}
    for module, (kind, scope, name, params, required) in declarations:
        if newer(required):
            continue
        if kind in ("type", "var"):
            older[kind].add(name)
        else:
            key = name if kind == "func" else scope
            older[kind].setdefault(key, set()).update(params or [])
    result = {}
    for module, (kind, scope, name, params, required) in declarations:
        late = newer(required)
        if not late or not name or name.startswith("_") or (scope or "").startswith("_"):
            continue
        if kind == "type" and name not in older["type"]:
            # A nested type is named through its parent (`UTF8.ValidationError`).
            regex = (r"\.%s\b" if scope else r"\b%s\b") % re.escape(name)
            result[name] = (name, name, regex, late, module)
        elif kind == "var" and name not in older["var"] and name not in older["func"]:
            result["." + name] = ("." + name, name, r"\.%s\b" % re.escape(name), late, module)
        elif kind in ("func", "init") and params is not None and re.match(r"\w", name):
            callee = name if kind == "func" else scope
            if not callee or callee.startswith("_"):
                continue
            known = older[kind].get(callee)
            signature = "%s(%s)" % (callee if kind == "init" else name, "".join(l + ":" for l in params))
            call = (r"\b%s(?:<[^<>()]*>)?\(" if kind == "init" else r"\b%s\(") % re.escape(callee)
            if known is None and kind == "func":
                # Called, or called with only a trailing closure (`Task.immediate { … }`).
                regex = r"\b%s\(|\.%s\s*\{" % (re.escape(name), re.escape(name))
                result[signature] = (signature, callee, regex, late, module)
                continue
            # A label the older overloads lack tells this one's calls apart.
            distinct = [l for l in params if l != "_" and l not in (known or set())]
            if distinct:
                regex = call + r"(?:[^()]|\([^()]*\))*?\b%s\s*:" % re.escape(distinct[0])
                result[signature] = (signature, callee, regex, late, module)
    return list(result.values())


def own_names(files):
    """Names the package declares itself: a use of those is its own."""
    names = set()
    for path in files:
        for m in DECL.finditer(strip_comments_and_strings(path.read_text(errors="replace"))):
            if m.group(2) and m.group(1) != "extension":
                names.add(m.group(2))
    return names


def interfaces():
    swift = os.environ.get("SWIFT", "swift")
    try:
        resource = subprocess.run([swift, "-print-target-info"], capture_output=True, text=True, check=True).stdout
        folder = Path(re.search(r'"runtimeResourcePath"\s*:\s*"([^"]+)"', resource).group(1)) / "linux"
    except (OSError, subprocess.CalledProcessError, AttributeError):
        folder = Path("/usr/lib/swift/linux")
    found = []
    for module in MODULES:
        found += [p for p in sorted((folder / (module + ".swiftmodule")).glob("*.swiftinterface"))
                  if ".private." not in p.name][:1]
    return found


def dependency_sources(root):
    """The Swift sources of the package's resolved dependencies (.build/checkouts), each with its
    module's name: their public declarations carry the same `@available` as an interface would."""
    return sorted(p for p in (root / ".build" / "checkouts").glob("*/Sources/*/**/*.swift"))


def module_of(path):
    if path.suffix == ".swiftinterface":
        return path.parent.name.split(".")[0]
    parts = path.parts
    return parts[parts.index("Sources") + 1]


def check(roots, files_of_interfaces, dependencies=()):
    declarations, tuple_labels = [], set()
    for path in list(files_of_interfaces) + list(dependencies):
        found, labels_there = interface_declarations(path, public_only=path.suffix == ".swift")
        module = module_of(path)
        declarations += [(module, d) for d in found]
        tuple_labels |= labels_there
    files = sorted(p for root in roots for folder in CODE_FOLDERS for p in (root / folder).rglob("*.swift")
                   if ".build" not in p.parts)
    mine = own_names(files)
    looked_for = [(d, word, re.compile(r), late, module) for d, word, r, late, module
                  in patterns(declarations, tuple_labels) if word not in mine]
    findings = []
    for path in files:
        code = strip_comments_and_strings(path.read_text(errors="replace"))
        visible = IMPLICIT | set(re.findall(r"^\s*(?:@\w+\s+)*import\s+(\w+)", code, re.M))
        guards = None
        for description, word, regex, late, module in looked_for:
            if module not in visible or word not in code:
                continue
            for m in regex.finditer(code):
                guards = guards or guarded_lines(code)
                line = code.count("\n", 0, m.start()) + 1
                uncovered = {p: v for p, v in late.items() if guards[line].get(p, (0, 0)) < v}
                if uncovered:
                    need = ", ".join("%s %d.%d" % (p, *v) for p, v in sorted(uncovered.items()))
                    findings.append("%s:%d: %s (%s) is %s; Waypost declares macOS 14, iOS 17: guard it "
                                    "with #available or @available" % (path, line, description, module, need))
    return looked_for, findings


def self_test(found_interfaces):
    """The check finds an unguarded use of each API it mended before, and not a guarded one."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "Sources" / "Probe").mkdir(parents=True)
        (root / "Sources" / "Probe" / "Probe.swift").write_text(
            'final class LoopExecutor: TaskExecutor {}\n'
            'func decode(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }\n'
            'func start() { _ = Task(executorPreference: nil) { }; _ = Task.immediate { } }\n'
            '// String(validating: bytes, as: UTF8.self) in a comment\n'
            'let text = "TaskExecutor in a string"\n'
            '@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)\n'
            'final class Guarded: TaskExecutor {\n    func enqueue(_ job: consuming ExecutorJob) {}\n}\n'
            'func either(_ bytes: [UInt8]) -> String? {\n'
            '    if #available(macOS 15, iOS 18, *) {\n        return String(validating: bytes, as: UTF8.self)\n    }\n'
            '    return nil\n}\n'
            'func halfGuarded(_ bytes: [UInt8]) -> String? {\n'
            '    guard #available(macOS 15, *) else { return nil }\n'
            '    return String(validating: bytes, as: UTF8.self)\n}\n')
        # Mutex is Synchronization's: seen where that module is imported; NSLock's withLock is not it.
        (root / "Tests" / "ProbeTests").mkdir(parents=True)
        (root / "Tests" / "ProbeTests" / "Locks.swift").write_text(
            'import Foundation\nimport Synchronization\nlet failures = Mutex<[String]>([])\n')
        (root / "Tests" / "ProbeTests" / "Foundation.swift").write_text(
            'import Foundation\nlet lock = NSLock()\nlet n = lock.withLock({ 1 })\n')
        _, findings = check([root], found_interfaces)
    lines = sorted((Path(f.split(":")[0]).name, int(f.split(":")[1])) for f in findings)
    # The unguarded four (line 3 holds two), iOS left open by `guard #available(macOS 15, *)`,
    # and the Mutex.
    expected = [("Locks.swift", 3)] + [("Probe.swift", n) for n in (1, 2, 3, 3, 18)]
    if lines != expected:
        print("check-apple-availability: self-test found lines %s, expected %s:\n%s"
              % (lines, expected, "\n".join(findings)), file=sys.stderr)
        return False
    return True


def main():
    found_interfaces = interfaces()
    if not any(p.parent.name == "_Concurrency.swiftmodule" for p in found_interfaces):
        print("check-apple-availability: the toolchain's module interfaces are missing", file=sys.stderr)
        return 70
    if not self_test(found_interfaces):
        return 70
    if "--self-test" in sys.argv[1:]:
        print("check-apple-availability: self-test passed")
        return 0
    root = Path(__file__).resolve().parent.parent
    dependencies = dependency_sources(root)
    looked_for, findings = check([root], found_interfaces, dependencies)
    for finding in findings:
        print(os.path.relpath(finding.split(":")[0], root) + finding[len(finding.split(":")[0]):])
    if findings:
        return 1
    packages = len({p.parts[p.parts.index("checkouts") + 1] for p in dependencies})
    print("Apple availability: no API newer than macOS 14 / iOS 17 used unguarded (%d names looked for, from "
          "%d standard library interfaces and %d dependencies' sources%s; Foundation is not covered: it "
          "ships no interface on Linux)" % (len(looked_for), len(found_interfaces), packages,
                                            "" if packages else ", none checked out yet: build first"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
