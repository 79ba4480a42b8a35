#!/usr/bin/env python3
"""Validate the annotated order corpus: TOML syntax, field values, unique ids, and that every
recipient and place id exists in the named scenario (hexes on its map). Data check only; it
does not run the order reader. Usage: python3 tests/data/orders/corpus/check.py [FILES...]"""
import glob, os, re, sys, tomllib
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
REGISTERS = {"terse", "formal", "passive", "purpose", "condition", "negation", "pronoun",
             "telegraphic", "courtesy", "report", "multi", "real", "bad"}
TYPES = {"engage", "general", "complex", "none"}
KEYS = {"id", "text", "register", "type", "recipients", "places", "prohibitions", "purpose",
        "condition", "errors", "flags", "bad", "source", "note"}
CODES = {"unreadable", "no-recipient", "unknown-recipient", "recipient-not-own-side", "open-ended",
         "unknown-place", "hex-off-map", "no-route", "ambiguous-name", "near-miss",
         "spelling-variant", "condition-may-fail", "time-past", "independent-not-allowed",
         "unstructured-text", "implicit-recipient", "type-mismatch", "unknown-unit", "too-long",
         "vague-place", "contradiction", "unknown-word"}
HEX = re.compile(r"^\d{1,2}\.\d{2}$")

def scenario(name):
    d = tomllib.load(open(os.path.join(ROOT, "scenarios", name + ".toml"), "rb"))
    ids = {x["id"]: x.get("side") for k in ("formations", "units") for x in d.get(k, [])}
    places = {p["id"] for p in d.get("places", [])}
    m = d["map"]
    return ids, places, (m["first_col"], m["last_col"], m["first_row"], m["last_row"])

def main(files):
    files = files or sorted(glob.glob(os.path.join(HERE, "*.toml")))
    seen, problems, per_file, per_reg = set(), [], Counter(), Counter()
    real = bad = 0
    for f in files:
        d = tomllib.load(open(f, "rb"))
        meta = d["meta"]
        sc = scenario(meta["scenario"]) if meta["scenario"] else None
        for o in d.get("order", []):
            where = f"{os.path.basename(f)}:{o.get('id')}"
            def p(msg): problems.append(f"{where}: {msg}")
            for k in ("id", "text", "register", "type", "recipients", "places"):
                if k not in o: p(f"missing {k}")
            for k in o:
                if k not in KEYS: p(f"unknown key {k}")
            if o["id"] in seen: p("duplicate id")
            seen.add(o["id"])
            if o["register"] not in REGISTERS: p(f"bad register {o['register']}")
            if o["type"] not in TYPES: p(f"bad type {o['type']}")
            if o.get("bad") and not o.get("flags") and not o.get("errors"): p("bad order without flags")
            for c in o.get("flags", []) + o.get("errors", []):
                if c not in CODES: p(f"unknown code {c}")
            if o["register"] == "real" and not o.get("source"): p("real order without source")
            if o.get("condition") and o["type"] not in ("complex", "none") and not o.get("bad"):
                p("conditional order should be complex")
            for pl in o["places"]:
                if set(pl) != {"text", "id"}: p(f"place needs text and id: {pl}")
                if pl["text"] and pl["text"] not in o["text"]: p(f"place text not in order: {pl['text']}")
                if pl["text"].lower().startswith(("the ", "a ", "an ")): p(f"leading article: {pl['text']}")
                if sc and pl["id"]:
                    if HEX.match(pl["id"]):
                        c, r = map(int, pl["id"].split("."))
                        fc, lc, fr, lr = sc[2]
                        if not (fc <= c <= lc and fr <= r <= lr):
                            p(f"hex off map {pl['id']}")
                    elif pl["id"] not in sc[1]: p(f"unknown place id {pl['id']}")
                if not sc and pl["id"]: p("place id without scenario")
            for r in o["recipients"]:
                if sc and r not in sc[0]: p(f"unknown recipient id {r}")
                if not sc and r and r not in o["text"]: p(f"recipient text not in order: {r}")
            per_file[os.path.basename(f)] += 1
            per_reg[o["register"]] += 1
            real += o["register"] == "real"
            bad += bool(o.get("bad"))
    for x in problems: print(x)
    print(f"{len(seen)} orders; bad {bad}; real {real}")
    print("per file:", dict(per_file))
    print("per register:", dict(sorted(per_reg.items())))
    return 1 if problems else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
