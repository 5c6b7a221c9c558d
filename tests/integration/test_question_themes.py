"""question_themes on the real server: every question's theme is mapped with its own domain's
relation categories (read once per domain), as a map built from that domain alone maps it."""

from __future__ import annotations

from kg.themes import GENERIC, ThemeMap, question_themes

CATEGORY_OF = {"CAUSES": "Causal", "EXPLAINS_PHENOMENON": "Explanatory"}


def test_each_question_mapped_with_its_own_domains_categories(bench) -> None:
    for label, category in CATEGORY_OF.items():  # physics carries categories, the others none
        bench.run_text(
            "MATCH (:Concept {domain: 'physics'})-[r:RELATES {label: $label}]->(:Concept) "
            "SET r.category = $category",
            label=label,
            category=category,
        )
    rows = bench.run_text(
        "MATCH (q:Question) RETURN q.uid AS uid, q.domain AS domain, q.theme AS theme, "
        "[(q)-[:TARGET]->(p:Path) | p.labels] AS target_labels"
    )
    got = question_themes(bench, [r["uid"] for r in rows])
    assert set(got) == {r["uid"] for r in rows} and len(got) == 139

    def own_map(domain: str) -> ThemeMap:
        cats = bench.run_text(
            "MATCH (:Concept {domain: $domain})-[r:RELATES]->(:Concept) "
            "WHERE r.category IS NOT NULL "
            "RETURN r.category AS category, collect(DISTINCT r.label) AS labels",
            domain=domain,
        )
        return ThemeMap({c["category"]: c["labels"] for c in cats})

    maps = {d: own_map(d) for d in ("physics", "biology", "world_history")}
    assert not maps["physics"].generic and maps["biology"].categories == GENERIC
    for r in rows:
        labels = [label for path in r["target_labels"] for label in (path or [])]
        assert got[r["uid"]] == maps[r["domain"]].categorize(r["theme"], labels), r["uid"]
    physics = {got[r["uid"]].category for r in rows if r["domain"] == "physics"}
    assert physics & {"Causal", "Explanatory"}  # the domain's own categories are used
    others = {got[r["uid"]].category for r in rows if r["domain"] != "physics"}
    assert not others & {"Causal", "Explanatory"}
