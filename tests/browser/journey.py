"""Real-browser journeys for the web table (issue 15), in headless Chromium via Playwright.

The umpire opens a game; two players join by their links in separate browser contexts; each
writes an order, sees the live check (read-back, type, cost, arrival), and sends it; the umpire
advances to the next turn; each side sees its own order arrive and nothing of the other's.
Screenshots of every page go to target/screenshots/.

Run: python3 tests/browser/journey.py   (needs target/debug/staffwork or $STAFFWORK_BIN,
Debian's chromium at /usr/bin/chromium, and `pip install playwright==1.65.2`).
Prints "N passed, 0 failed" and exits 0, or names the failed check and exits 1.
"""

import os
import re
import socket
import subprocess
import sys
import tempfile
import time

from playwright.sync_api import expect, sync_playwright

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STAFFWORK_BIN", os.path.join(ROOT, "target", "debug", "staffwork"))
SHOTS = os.path.join(ROOT, "target", "screenshots")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000

IMPERIAL_ORDER = "3rd Div: march over Hinzeberg to Kümla and defend it from attacks from the north."
ALLIED_ORDER = "Hall Div: attack along the Hinzeberg road and capture Hinzeberg."

passed = 0


def check(name, cond):
    global passed
    if not cond:
        raise AssertionError(name)
    passed += 1
    print(f"ok - {name}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(tmp, scenario="tutorial-hall"):
    port = free_port()
    out = open(os.path.join(tmp, f"server-{scenario}.txt"), "w+")
    proc = subprocess.Popen(
        [BIN, "serve", "--demo", "--scenario", scenario, "--db",
         os.path.join(tmp, f"{scenario}.db"), "--addr", f"127.0.0.1:{port}"],
        stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )
    links = {}
    deadline = time.time() + 30
    while time.time() < deadline and len(links) < 4:
        time.sleep(0.2)
        out.seek(0)
        links = dict(re.findall(r"^\s+(\S+)\s+(http://\S+/join/[0-9a-f]{32})$", out.read(), re.M))
        if proc.poll() is not None:
            break
    if len(links) < 4:
        proc.kill()
        out.seek(0)
        raise SystemExit("the server did not print four links:\n" + out.read())
    return proc, port, links


def shot(page, name):
    os.makedirs(SHOTS, exist_ok=True)
    page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def advance(um, times):
    """The umpire presses Advance and waits for each answer (the console's own request)."""
    for _ in range(times):
        with um.expect_response(lambda r: r.url.endswith("/umpire/advance")) as resp:
            um.click("form[hx-post='/umpire/advance'] button")
        check("umpire: advance accepted", resp.value.status == 200)


def write_order(page, text, name):
    page.fill("#order-text", "")
    page.type("#order-text", text, delay=5)
    # The live check: read-back, type, cost and arrival appear while typing (debounced).
    expect(page.locator("#check dl")).to_contain_text("Read-back", timeout=TIMEOUT_MS)
    expect(page.locator("#check")).to_contain_text("command points", timeout=TIMEOUT_MS)
    check(f"{name}: the live check shows the read-back and the cost",
          "Arrives" in page.inner_text("#check"))
    shot(page, f"{name}-check")
    page.click("#order-form button[type=submit]")
    expect(page.locator("#order-result")).to_contain_text("sent", timeout=TIMEOUT_MS)
    check(f"{name}: the order was sent", "Order" in page.inner_text("#order-result"))


def vimeiro(browser):
    """The README's one command (`serve --demo`, Vimeiro): the British page after the French
    Command Phase, an order being checked as it is written."""
    tmp = tempfile.mkdtemp(prefix="staffwork-vimeiro-")
    proc, port, links = start_server(tmp, "vimeiro-1808")
    try:
        um = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        br = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        um.goto(links["umpire"])
        advance(um, 2)
        br.goto(links["side:british"])
        expect(br.locator("#mapwrap svg")).to_be_visible()
        check("vimeiro: the whole 40 x 22 map is drawn", br.locator("#mapwrap polygon").count() == 880)
        # V2.4: a British brigade on "defend in place" takes no orders; the desk says so at once.
        br.type("#order-text", "Fane's Brigade: advance to Vimeiro and defend it.", delay=5)
        expect(br.locator("#check")).to_contain_text("Refused (V2.4)")
        check("vimeiro: an order V2.4 forbids is refused while it is written", True)
        br.fill("#order-text", "")
        br.type("#order-text", "Hill: advance to Vimeiro Hill and defend it.", delay=5)
        expect(br.locator("#check")).to_contain_text("command points")
        check("vimeiro: the British order is priced and timed", "Arrives" in br.inner_text("#check"))
        shot(br, "vimeiro-british")
        # 4.0, decision 0161: no British Commander is within 12 hexes of the French arrivals at
        # 40.06, so the British map shows "an enemy stack" there and names nobody in it.
        stack = br.locator("#mapwrap g.stack")
        check("vimeiro: the British map shows an enemy stack marker", stack.count() >= 1)
        tip = stack.first.locator("title").text_content()
        check("vimeiro: the marker's tooltip says 'an enemy stack' and where",
              tip.startswith("an enemy stack at 40.06"))
        svg = br.inner_html("#mapwrap")
        check("vimeiro: the British map names no French piece in the stack",
              not any(n in svg for n in ("junot", "Junot", "loison", "Loison", "26-chasseurs")))
        check("vimeiro: the legend explains the enemy stack marker",
              "enemy stack" in br.inner_text(".legend"))
        box = stack.first.bounding_box()
        br.screenshot(path=os.path.join(SHOTS, "vimeiro-british-stack.png"),
                      clip={"x": max(0, box["x"] - 260), "y": max(0, box["y"] - 140),
                            "width": 420, "height": 280})
        # Decision 0160: the British book numbers British orders 1, 2 ... (seven pre-set, then
        # this one as 8), whatever the French have written.
        br.click("#order-form button[type=submit]")
        expect(br.locator("#order-result")).to_contain_text("sent", timeout=TIMEOUT_MS)
        expect(br.locator("table.orders tbody tr")).to_have_count(8, timeout=TIMEOUT_MS)
        numbers = br.locator("table.orders tbody tr td:first-child").all_inner_texts()
        check("vimeiro: the British book numbers its own orders 1 to 8",
              numbers == [str(i) for i in range(1, 9)] or print(numbers))
        shot(br, "vimeiro-british-sent")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def combat_form(browser):
    """The umpire's combat form (tutorial-hall): every option of `staffwork combat` as a field,
    and a refusal told in the form's words — a bad hex in the Line Extension field names that
    field, not `--attacker-at`."""
    tmp = tempfile.mkdtemp(prefix="staffwork-combat-")
    proc, _port, links = start_server(tmp)
    try:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        um = ctx.new_page()
        um.set_default_timeout(TIMEOUT_MS)
        um.goto(links["umpire"])
        form = um.locator("#combat-form")
        expect(form).to_be_visible()
        for name in ("attacker_at", "defender_at", "attack_arc", "flanks", "fortified",
                     "cannister", "reaction", "follow_ons", "quality", "skirmisher_absorbs"):
            check(f"combat form: a `{name}` field", form.locator(f"[name={name}]").count() == 1)
        form.locator("[name=attackers]").fill("1-i")
        form.locator("[name=defenders]").fill("1-div")
        form.locator("[name=attacker_at]").fill("7.x3")
        with um.expect_response(lambda r: r.url.endswith("/umpire/combat")):
            form.locator("button[type=submit]").click()
        result = um.locator("#combat-result")
        expect(result).to_contain_text("Line Extension at hex", timeout=TIMEOUT_MS)
        check("combat form: the refusal names the field, not a flag",
              "--attacker-at" not in result.inner_text())
        shot(um, "umpire-combat-form")
        # The combat section alone, form and refusal, for a look at the fields.
        um.locator("#combat-form").locator("xpath=..").screenshot(
            path=os.path.join(SHOTS, "umpire-combat-section.png"))
        ctx.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def cavalry_withdrawal(browser):
    """22.1 (decision 0157): the umpire's console lists the Cavalry Withdrawal a move made owed —
    the cavalry, the mover next to it, the 6–12 hexes and the move that withdraws it — on the
    conformance miniature mini-reaction-cavalry, the French Column moved next to aus-cav."""
    tmp = tempfile.mkdtemp(prefix="staffwork-withdrawal-")
    db = os.path.join(tmp, "withdrawal.db")
    scenario = os.path.join(ROOT, "tests", "conformance", "scenarios", "mini-reaction-cavalry.toml")
    for args in (["new", "--scenario", scenario, "--db", db, "--seed", "1"],
                 ["turn", "--db", db],
                 ["move", "--db", db, "--piece", "fr-col", "--to", "4.06"]):
        subprocess.run([BIN] + args, check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    out = open(os.path.join(tmp, "server.txt"), "w+")
    proc = subprocess.Popen([BIN, "serve", "--db", db, "--addr", f"127.0.0.1:{port}"],
                            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        links = {}
        deadline = time.time() + 30
        while time.time() < deadline and "umpire" not in links:
            time.sleep(0.2)
            out.seek(0)
            links = dict(re.findall(r"^\s+(\S+)\s+(http://\S+/join/[0-9a-f]{32})$", out.read(), re.M))
        check("withdrawal: the server printed the umpire's link", "umpire" in links)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        um = ctx.new_page()
        um.set_default_timeout(TIMEOUT_MS)
        um.goto(links["umpire"])
        box = um.locator("#cavalry-withdrawals")
        expect(box).to_be_visible()
        text = box.inner_text()
        check("withdrawal: the console lists the owed Cavalry Withdrawal with its rule",
              "Cavalry Withdrawals owed (22.1)" in text and "aus-cav (austrian, 3.06)" in text)
        check("withdrawal: it names the mover, the 6–12 hexes and the move",
              "fr-col adjacent at 4.06" in text and "6–12 hexes from 3.06" in text
              and "move --piece aus-cav --retreat-from 4.06" in text)
        box.screenshot(path=os.path.join(SHOTS, "umpire-cavalry-withdrawal.png"))
        shot(um, "umpire-cavalry-withdrawal-page")
        ctx.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def main():
    tmp = tempfile.mkdtemp(prefix="staffwork-journey-")
    proc, port, links = start_server(tmp)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, timeout=TIMEOUT_MS)
            contexts = {s: browser.new_context(viewport={"width": 1400, "height": 1000})
                        for s in ("umpire", "side:imperial", "side:allied")}
            pages = {s: c.new_page() for s, c in contexts.items()}
            for pg in pages.values():
                pg.set_default_timeout(TIMEOUT_MS)
            errors = []
            for s, pg in pages.items():
                pg.on("console", lambda m, s=s: errors.append(f"{s}: {m.text}") if m.type == "error" else None)

            # The umpire opens the game.
            um = pages["umpire"]
            um.goto(links["umpire"])
            check("umpire: the join link lands on a URL without the token",
                  um.url.endswith("/umpire") and "/join/" not in um.url)
            expect(um.locator("#mapwrap svg")).to_be_visible()
            check("umpire: the map is drawn", um.locator("#mapwrap polygon").count() > 100)
            shot(um, "umpire-console")

            # Two players join in their own contexts.
            imp, al = pages["side:imperial"], pages["side:allied"]
            imp.goto(links["side:imperial"])
            al.goto(links["side:allied"])
            for name, pg in (("imperial", imp), ("allied", al)):
                check(f"{name}: lands on /play", pg.url.endswith("/play"))
                expect(pg.locator("#mapwrap svg")).to_be_visible()
            cookies = contexts["side:imperial"].cookies()
            check("the seat cookie is HttpOnly and SameSite=Strict",
                  any(c["httpOnly"] and c["sameSite"] == "Strict" for c in cookies))
            shot(imp, "imperial-page")

            # Imperial writes and sends in its Command Phase.
            write_order(imp, IMPERIAL_ORDER, "imperial")
            # The umpire opens the Imperial operations: the movement form shows the engine's
            # path and MP cost before anything moves.
            advance(um, 1)
            imp.reload()
            expect(imp.locator("#mapwrap svg")).to_be_visible()
            imp.select_option("#move-piece", "1-3-i")
            imp.fill("#move-to", "9.10")
            imp.click("#movement button:has-text('Show path and cost')")
            expect(imp.locator("#move-result")).to_contain_text("Would move", timeout=TIMEOUT_MS)
            check("imperial: the movement form shows the path and MP cost first",
                  "MP" in imp.inner_text("#move-result"))
            shot(imp, "imperial-movement")
            # On to the Allied Command Phase.
            advance(um, 1)
            al.reload()
            expect(al.locator("#status")).to_contain_text("allied phasing")
            expect(al.locator("#mapwrap svg")).to_be_visible()
            write_order(al, ALLIED_ORDER, "allied")
            shot(al, "allied-page")

            # The umpire advances to the next turn: the aides arrive.
            advance(um, 2)
            um.reload()
            expect(um.locator("#status")).to_contain_text("08:30")
            expect(um.locator("#mapwrap svg")).to_be_visible()
            expect(um.locator("#panel-ready")).to_contain_text("ready")
            shot(um, "umpire-after-advance")

            # Live update: the side pages refresh their books by themselves (SSE "changed").
            # Decision 0160: a side numbers its own orders 1, 2 ... (the pre-set order is 1).
            expect(imp.locator("#panel-books")).to_contain_text("order 2 arrived", timeout=TIMEOUT_MS)
            imp_books = imp.inner_text("#panel-books")
            al.reload()
            expect(al.locator("#mapwrap svg")).to_be_visible()
            al_books = al.inner_text("#panel-books")
            check("imperial sees its own order arrive", "order 2 arrived" in imp_books)
            check("imperial's order book numbers its own orders 1, 2",
                  imp.locator("table.orders tbody tr td:first-child").all_inner_texts() == ["1", "2"])
            check("imperial does not see the allied order", ALLIED_ORDER not in imp_books
                  and "Hall Division is to attack" not in imp_books)
            check("allied sees its own order", "Hall Division is to attack" in al_books)
            check("allied does not see the imperial order or its arrival",
                  "to Kümla" not in al_books and "3rd Division" not in al_books)
            shot(imp, "imperial-after-advance")
            shot(al, "allied-after-advance")

            check("no console errors (CSP, scripts, missing files)",
                  not errors or print("\n".join(errors)))
            # A side cannot open the umpire's console.
            r = imp.goto(f"http://127.0.0.1:{port}/umpire")
            check("a side gets 403 on the umpire's console", r.status == 403)
            vimeiro(browser)
            combat_form(browser)
            cavalry_withdrawal(browser)
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"{passed} passed, 0 failed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"not ok - {e}\n{passed} passed, 1 failed")
        sys.exit(1)
