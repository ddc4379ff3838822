#!/usr/bin/env python3
"""Completes the man page argument-parser's generate-manual writes (NAME, SYNOPSIS, DESCRIPTION
with every option): its generic EXIT STATUS is replaced by docs/man/sections.mdoc's, which also
brings ENVIRONMENT, FILES, EXAMPLES and SEE ALSO; the global options get an OPTIONS heading and
the subcommands (each with its options) a COMMANDS one;
empty lines (groff warns about each) are dropped; PREFIX becomes the install prefix.

    scripts/finish-manual.py GENERATED.1 SECTIONS.mdoc PREFIX > waypost.1
"""
import re
import sys

generated, sections_file, prefix = sys.argv[1:4]
page = open(generated, encoding="utf-8").read().split("\n")
sections = open(sections_file, encoding="utf-8").read()
sections = "\n".join(line for line in sections.split("\n") if not line.startswith('.\\"'))
sections = sections.replace("PREFIX", prefix.rstrip("/") or "/")

out = []
skipping = False
options_named = False
commands_named = False
depth = 0  # nesting of .Bl lists
for line in page:
    if line.strip() == "":
        continue  # groff -ww: "empty input line"
    if line.startswith(".Sh "):
        title = line[4:].strip().strip('"').upper()
        if title == "EXIT STATUS":
            out.extend(sections.rstrip("\n").split("\n"))
            skipping = True
            continue
        skipping = False
    if skipping:
        continue
    # The top-level options follow the description's text as the first list: give them their
    # own heading, as man-pages(7) orders a page.
    if not options_named and line.startswith(".Bl -tag") and any(l.startswith(".Sh DESCRIPTION") for l in out):
        out.append(".Sh OPTIONS")
        options_named = True
    # The subcommands follow the global options in that list: a COMMANDS section of their own.
    if options_named and not commands_named and depth == 1 and line.startswith(".It Em "):
        out.extend([".El", ".Sh COMMANDS", ".Bl -tag -width 6n"])
        commands_named = True
    if line.startswith(".Bl"):
        depth += 1
    elif line.startswith(".El"):
        depth -= 1
    out.append(line)
if not any(l.startswith(".Sh EXIT STATUS") for l in out):
    sys.exit("finish-manual: the generated page has no EXIT STATUS section to replace")
print("\n".join(out))
