"""The HTML report of evaluation runs in a real headless Chromium: tables carry the figures
computed in Python, the question list filters and sorts, a question shows its paths and its
highlighted answer, two runs sit side by side, and hostile model output stays text."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from browser import in_ci, missing, start_chromium
from llm_server import ANSWER_MARKER, LLMTestServer
from typer.testing import CliRunner

from evaluation.models import Setting
from evaluation.reporting.html_report import eval_payload, outcome, write_html
from evaluation.responders.tokens import split_sentences
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.runs.store import get_run
from evaluation.scoring.aggregate import by_field, by_hop, by_theme
from evaluation.scoring.question_scores import run_scores
from kg.cli.main import app
from kg.store import _password
from kg.themes import question_themes

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "demo" / "bench" / "sample.jsonl"
HOSTILE = (
    "The controller switches the pump on with a start command. "
    '<script>window.__pwned = 1;</script><img src=x onerror="window.__pwned = 2">'
    "<b>bold</b> &amp; </div></td></table> {{JS}} ends here."
)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    absent = missing()
    if absent:
        if in_ci():
            pytest.fail(
                f"CI must run the browser tests; missing: {', '.join(absent)} "
                "(scripts/install-browser.sh, pip install -e '.[test]')"
            )
        pytest.skip(
            f"no headless browser here (missing {', '.join(absent)}; install with "
            "scripts/install-browser.sh) and not CI"
        )
    d = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield d
    d.quit()


@pytest.fixture(scope="module")
def runs(store, tmp_path_factory):
    from construction.perspectivebench.importer import import_perspectivebench

    import_perspectivebench(store, [SAMPLE])
    for responder, rid in (("cover-all", "html-cover"), ("target-only", "html-target")):
        s = execute(
            store,
            RunSpec(
                kind="eval",
                responder=responder,
                judge="embedding",
                setting=Setting.oracle,
                run_id=rid,
            ),
        )
        assert s.status == "done" and s.completed > 0
    with LLMTestServer() as server:
        server.add_rule(match=ANSWER_MARKER, status=500, times=1)  # one question fails
        server.add_rule(match=ANSWER_MARKER, reply=HOSTILE)
        cfg = server.config(
            role="responder",
            cache=False,
            max_retries=0,
            concurrency=1,
            cache_path=tmp_path_factory.mktemp("cache") / "c.sqlite",
        )
        s = execute(
            store,
            RunSpec(
                kind="eval",
                responder="llm",
                responder_llm=cfg,
                judge="embedding",
                setting=Setting.oracle,
                run_id="html-evil",
                limit=3,
            ),
        )
        assert (s.status, s.completed, s.failed) == ("partial", 2, 1)
    out = tmp_path_factory.mktemp("html")
    pages = {
        "pair": write_html(
            out / "pair.html",
            eval_payload(store, ["html-cover", "html-target"]),
            title="cover vs target",
        ),
        "evil": write_html(
            out / "evil.html",
            eval_payload(store, ["html-evil"]),
            title="<script>window.__pwned=3</script>",
        ),
    }
    return store, pages


def _open(driver, path: Path) -> None:
    driver.get(path.as_uri())
    assert driver.execute_script("return document.body.getAttribute('data-ready')") == "1", (
        _console(driver)
    )


def _console(driver) -> str:
    return "\n".join(e["message"] for e in driver.get_log("browser"))


def _severe(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def _cells(driver, table: str, row: int) -> list[str]:
    return [
        c.text
        for c in driver.find_elements(
            "css selector", f'[data-table="{table}"] tbody tr[data-row="{row}"] td'
        )
    ]


def _screenshot(driver, tmp_path: Path, name: str) -> Path:
    p = tmp_path / f"{name}.png"
    driver.save_screenshot(str(p))
    assert p.stat().st_size > 10_000
    keep = ROOT / "out" / "screenshots"  # a copy to look at (out/ is not tracked)
    keep.mkdir(parents=True, exist_ok=True)
    shutil.copy(p, keep / p.name)
    return p


def test_tables_show_the_runs_figures(driver, runs, tmp_path):
    store, pages = runs
    _open(driver, pages["pair"])
    for row, rid in enumerate(["html-cover", "html-target"]):
        _, scores = run_scores(store, rid)
        expected = by_hop(scores, "x")  # computed here, independently of the page
        for i, r in enumerate(expected.rows):
            shown = _cells(driver, f"{rid}_by_hop", i)
            assert shown == [expected.cell(r, c) for c in expected.columns]
        themes = question_themes(store, [s.question for s in scores])
        for field, t in (
            ("domain", by_field(scores, "domain", "x")),
            ("theme", by_theme(scores, themes, "x")),
        ):
            assert len(t.rows) > 0
            for i, r in enumerate(t.rows):
                assert _cells(driver, f"{rid}_by_{field}", i) == [t.cell(r, c) for c in t.columns]
        overall = next(r for r in expected.rows if r["hop"] == "Overall")
        shown = dict(
            zip(
                [
                    h.text
                    for h in driver.find_elements("css selector", '[data-table="overall"] thead th')
                ],
                _cells(driver, "overall", row),
                strict=True,
            )
        )
        assert shown["run"] == rid and shown["n"] == str(len(scores))
        assert shown["PAS"] == expected.cell(overall, "PAS") and "[" in shown["PAS"]
    # the paired comparison table and both plots (SVG data URIs, rendered)
    assert driver.find_elements("css selector", '[data-table="compare_html-cover_html-target"]')
    widths = driver.execute_script(
        "return Array.from(document.querySelectorAll('img[data-plot]')).map(i => i.naturalWidth)"
    )
    assert len(widths) == 2 and all(w > 100 for w in widths)
    assert "judge unvalidated" in driver.find_element("css selector", ".runs").text
    assert not _severe(driver)
    _screenshot(driver, tmp_path, "summary")


def _select(driver, sel_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", sel_id)).select_by_value(value)


def _rows(driver):
    return driver.find_elements("css selector", "#q-rows tr")


def test_filter_sort_and_question_view(driver, runs, tmp_path):
    store, pages = runs
    _open(driver, pages["pair"])
    driver.find_element("id", "tab-questions").click()
    _, cover = run_scores(store, "html-cover")
    _, target = run_scores(store, "html-target")
    assert len(_rows(driver)) == len(cover)
    # outcome filter: cover-all states every valid path -> blended wherever there is a
    # distractor it reproduced; the page's counts match outcomes computed here
    payload_q = {q.question: q for q in target}
    _select(driver, "f-run-a", "html-target")
    _select(driver, "f-run-b", "")
    targets = {
        r["question"]: set(r["targets"]) for r in store.read("eval/scores", uid="html-target")
    }
    want = {
        name: sum(outcome(targets[s.question], s.present) == name for s in target)
        for name in ("aligned", "blended", "drifted", "|A|=0")
    }
    for name, n in want.items():
        _select(driver, "f-outcome", name)
        rows = _rows(driver)
        assert len(rows) == n, name
        assert all(r.get_attribute("data-outcome") == name for r in rows)
    _select(driver, "f-outcome", "")
    _select(driver, "f-hop", "2")
    rows = _rows(driver)
    assert len(rows) == sum(s.hop == 2 for s in target) > 0
    _select(driver, "f-hop", "")
    _select(driver, "f-sort", "pas-desc")
    pas = [float(r.get_attribute("data-pas")) for r in _rows(driver)]
    assert pas == sorted(pas, reverse=True)
    _select(driver, "f-sort", "pas-asc")
    pas = [float(r.get_attribute("data-pas")) for r in _rows(driver)]
    assert pas == sorted(pas)

    # click a question: its paths as concept chains, its answer with the judge's spans
    first = _rows(driver)[0]
    quid = first.get_attribute("data-q")
    first.click()
    detail = driver.find_element("id", "q-detail")
    q_rows = store.read("eval/questions", domains=None, hops=None, uids=[quid], limit=None)[0]
    assert q_rows["text"] in detail.find_element("css selector", ".question-text").text
    chains = detail.find_elements("css selector", ".path .chain")
    assert len(chains) == len(q_rows["paths"])
    concepts = detail.find_elements("css selector", ".path.target .concept")
    summaries = {c["key"]: c["summary"] for c in q_rows["concepts"]}
    assert concepts and all(
        summaries[c.get_attribute("data-concept")] in c.get_attribute("title") for c in concepts
    )
    labels = [e.text for e in detail.find_elements("css selector", ".path.target .lab")]
    target_path = next(p for p in q_rows["paths"] if p["target"])
    assert all(lab in labels for lab in target_path["labels"])
    # the sentence the embedding judge matched to the target edge is the highlighted one
    row = next(
        r for r in store.read("eval/report_answers", uid="html-target") if r["question"] == quid
    )
    verdict = next(v for v in row["verdicts"] if v["path"] == target_path["uid"])
    sentences = split_sentences(row["text"])
    hl = detail.find_elements("css selector", '[data-answer="html-target"] .sent.hl-t')
    assert verdict["edges_present"][0] and hl
    want_sentence = sentences[verdict["edge_sentences"][0]]
    assert any(h.text.startswith(want_sentence) for h in hl)
    reasons = [e.text for e in detail.find_elements("css selector", ".verdict .reason")]
    assert verdict["reason"] in reasons
    assert payload_q[quid].n_claims == len(
        detail.find_elements("css selector", '[data-run="html-target"] table.claims tbody tr')
    )
    assert not _severe(driver)
    _screenshot(driver, tmp_path, "question")


def test_two_runs_side_by_side(driver, runs, tmp_path):
    store, pages = runs
    _open(driver, pages["pair"])
    driver.find_element("id", "tab-questions").click()
    _select(driver, "f-run-a", "html-cover")
    _select(driver, "f-run-b", "html-target")
    _select(driver, "f-sort", "id")
    a = {s.question: s for s in run_scores(store, "html-cover")[1]}
    b = {s.question: s for s in run_scores(store, "html-target")[1]}
    rows = _rows(driver)
    assert len(rows) == len(a)
    for r in rows:
        quid = r.get_attribute("data-q")
        d = 100 * (b[quid].pas - a[quid].pas)
        assert r.find_elements("css selector", "td")[-1].text == (
            ("+" if d > 0 else "") + f"{d:.1f}"
        )
    rows[0].click()
    detail = driver.find_element("id", "q-detail")
    cols = detail.find_elements("css selector", ".side > .run-col")
    assert [c.get_attribute("data-run") for c in cols] == ["html-cover", "html-target"]
    quid = rows[0].get_attribute("data-q")
    shown = float(detail.find_element("css selector", ".paired").get_attribute("data-delta"))
    assert shown == pytest.approx(b[quid].pas - a[quid].pas)
    assert len(detail.find_elements("css selector", ".verdict")) == 2 * len(
        detail.find_elements("css selector", ".path")
    )
    _screenshot(driver, tmp_path, "side_by_side")


def test_model_output_is_shown_as_text_and_never_runs(driver, runs, tmp_path):
    store, pages = runs
    _open(driver, pages["evil"])
    driver.find_element("id", "tab-questions").click()
    _rows(driver)[0].click()
    answer = driver.find_element("css selector", '[data-answer="html-evil"]')
    text = driver.execute_script("return arguments[0].textContent", answer)
    assert "<script>window.__pwned = 1;</script>" in text and "<b>bold</b>" in text
    assert "{{JS}}" in text and "&amp;" in text
    assert not answer.find_elements("css selector", "script, img, b")
    assert driver.execute_script("return window.__pwned") is None
    assert driver.execute_script("return document.scripts.length") == 2  # data + app
    assert driver.title == "<script>window.__pwned=3</script>"
    assert not _severe(driver)
    _screenshot(driver, tmp_path, "hostile")


def test_failed_question_is_listed_with_its_error(driver, runs):
    store, pages = runs
    _open(driver, pages["evil"])
    driver.find_element("id", "tab-questions").click()
    assert len(_rows(driver)) == 3
    _select(driver, "f-outcome", "failed")
    rows = _rows(driver)
    assert len(rows) == 1
    rows[0].click()
    error = driver.find_element("css selector", "#q-detail pre.error").text
    assert rows[0].get_attribute("data-q") in error
    assert error in get_run(store, "html-evil").errors


def test_cli_report_html_and_view(runs, tmp_path):
    store, _ = runs
    env = {
        "KG_NEO4J_URI": store.settings.bolt_uri,
        "KG_NEO4J_USER": store.settings.neo4j_user,
        "KG_NEO4J_PASSWORD": _password(store.settings),
    }
    runner = CliRunner()
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["eval", "report", "html-cover", "--html", str(out)], env=env)
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="kg-data">(.*?)</script>', page, re.DOTALL).group(1))
    assert [r["uid"] for r in data["runs"]] == ["html-cover"]
    assert len(data["results"]["html-cover"]) == len(run_scores(store, "html-cover")[1])
    res = runner.invoke(app, ["eval", "view", "html-cover", "html-target"], env=env)
    assert res.exit_code == 0, res.output
    path = Path(res.output.strip().splitlines()[-1])
    try:
        assert path.suffix == ".html" and "html-target" in path.read_text(encoding="utf-8")
    finally:
        path.unlink()
    res = runner.invoke(app, ["eval", "view", "no-such-run"], env=env)
    assert res.exit_code != 0 and "unknown run id" in res.output


def test_stored_judge_validation_is_shown(driver, runs, tmp_path):
    """After `kg judge validate` stored results for the runs' judge, the page shows them: the
    natural-answer kappa first, rounded, with its gold file; a kappa below 0.6 is never green
    (kept last: the stored validations stay in this module's graph)."""
    store, _ = runs
    judge = eval_payload(store, ["html-cover"])["runs"][0]["validity"]["judge"]  # its full name
    common = {
        "judge": judge,
        "gold_hash": "ab" * 32,
        "version": "test",
        "agreement": 91.8918918918919,
        "precision": 0.8666666666666667,
        "failed": 0,
        "summary": "{}",
    }
    store.query(
        "eval/judge_validation_write",
        uid="jv-html-test-constructed",
        props={
            **common,
            "gold_file": "/x/gold.jsonl",
            "at": "2026-01-02",
            "kappa": 0.83,
            "constructed_kappa": 0.8333333,
            "constructed_kappa_low": 0.64,
            "constructed_kappa_high": 1.0,
            "constructed_paths": 37,
            "constructed_answers": 14,
            "constructed_words": [11, 24, 40],
            "constructed_settings": [],
        },
    )
    store.query(
        "eval/judge_validation_write",
        uid="jv-html-test-natural",
        props={
            **common,
            "gold_file": "/x/natural-dev.jsonl",
            "at": "2026-01-01",
            "kappa": 0.146,
            "natural_kappa": 0.146,
            "natural_kappa_low": 0.05,
            "natural_kappa_high": 0.25,
            "natural_paths": 208,
            "natural_answers": 48,
            "natural_words": [150, 280, 450],
            "natural_settings": ["base", "oracle"],
        },
    )
    payload = eval_payload(store, ["html-cover"])
    validity = payload["runs"][0]["validity"]
    assert not validity["validated"] and validity["kappa"] == 0.15
    assert validity["level"] == "weak" and validity["badge"] == "bad"
    # the cover-all answers are far shorter than the natural gold's 150-450 words
    assert any("outside the length range" in w for w in validity["warnings"])
    page = write_html(tmp_path / "validated.html", payload, title="validated judge")
    _open(driver, page)
    badge = driver.find_element("css selector", '.runs [data-level="weak"]')
    assert "weak" in badge.text and "0.15" in badge.text and "0.83" in badge.text
    assert (
        "bad" in badge.get_attribute("class").split()
        and "ok" not in badge.get_attribute("class").split()
    )
    kinds = driver.find_elements("css selector", ".runs .validity [data-kind]")
    assert [k.get_attribute("data-kind") for k in kinds] == ["natural", "constructed"]
    assert "natural-dev.jsonl, sha256 abababababab" in kinds[0].text
    text = driver.find_element("css selector", ".runs").text
    assert "warning: the run's answers" in text
    header = driver.find_element("id", "top").text + text
    assert "91.89" not in header and "0.8666" not in header  # figures at their precision
