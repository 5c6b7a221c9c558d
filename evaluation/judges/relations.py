"""What a relation label means, as words an answer would use to state it.

A label belongs to a relation family (cause, order, contrast, part-of...). Each family has cue
phrases in two voices: `forward` cues read "A <cue> B" for an edge A -> B ("A causes B"),
`reverse` cues read "B <cue> A" ("B is caused by A", "B because of A"). Symmetric families
(contrast, alternative, shared variables, cycle) need no direction. Families are separate on
purpose: a contrast is not a cause and a cause is not an order, so a sentence that only says
"A comes before B" never counts for A -CAUSES-> B.

The family of a label comes from the label's own words ("IS_A_POLITICAL_CAUSE_OF" -> cause),
else from the palette description's words ("A moves material into B" -> cue "move material");
a label no family knows keeps its own words (and its description's) as its cues.

A bare "because" is not a cue: answers use it to justify any statement ("A comes before B,
because ..."), so it says nothing about which relation holds; "because of", "due to" do.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from evaluation.judges.text import STOPWORDS, content_stems, stems
from kg.package_data import package_toml


class Family(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    symmetric: bool = False
    forward: tuple[str, ...] = ()
    reverse: tuple[str, ...] = ()


def _family(name: str, forward: str, reverse: str = "", symmetric: bool = False) -> Family:
    """A family from ' | '-separated cue phrases (one string per voice keeps the table short)."""
    split = lambda text: tuple(c.strip() for c in text.split("|") if c.strip())  # noqa: E731
    return Family(name=name, symmetric=symmetric, forward=split(forward), reverse=split(reverse))


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        _family(
            "cause",
            "cause | caused | causing | lead to | led to | leads to | result in | resulted in "
            "| bring about | brought about | trigger | drive | drove | driven | give rise to "
            "| gave rise to | spark | provoke | set in motion | set off | fuel | responsible "
            "for | contribute to | produce change | agent | push | pushed | prompted | "
            "precipitate | unleash | ignite | helped bring | helped cause | root of | behind | "
            "force behind | driving force | set ... in motion | sets ... in motion | gave impetus "
            "| impetus for | pushed ... into | drove ... toward | drove ... into",
            "caused by | because of | due to | result of | resulted from | result "
            "from | stem from | stems from | driven by | triggered by | owing to | brought "
            "about by | product of | consequence of | sparked by | provoked by | fueled by | "
            "rooted in | thanks to",
        ),
        _family(
            "order",
            "before | precede | prior to | ahead of | come first | comes first | came first | "
            "prerequisite | followed by | earlier than | lead into | leads into | must be "
            "understood before | precursor | groundwork | foundation for | presupposes",
            "after | follow | follows | followed | subsequent to | later than | builds on | "
            "built on | comes after | came after | presuppose | depends on understanding | "
            "requires understanding | only once | succeed",
        ),
        _family(
            "contrast",
            "contrast | contrasts | whereas | unlike | differ | differs | different | "
            "difference | opposite | on the other hand | versus | vs | other way | distinct "
            "from | oppose | opposed | by contrast | the reverse | rather than | diverge | "
            "sharply | stands apart | at odds | mirror image",
            symmetric=True,
        ),
        _family(
            "alternative",
            "alternative | alternatives | instead of | in place of | substitute | option | "
            "options | either | rival | competing | another route | other route | another way "
            "| interchangeable | can replace | replace | stand in for | fallback | backup | "
            "choice between | two ways | two routes | two approaches | alternatively",
            symmetric=True,
        ),
        _family(
            "example",
            "example of | an example | instance of | illustrate | illustrates | exemplify | "
            "case of | specimen of | embodiment of | one of | a prime example | a case | "
            "typifies | model of | in miniature | instances of",
            "such as | for example | for instance | exemplified by | illustrated by | "
            "embodied | embodies | include | includes | including | seen in",
        ),
        _family(
            "type",
            "type of | kind of | form of | sort of | variety of | class of | category of | "
            "subtype | specific type | a type | particular kind | belongs to | member of | "
            "species of | version of",
            "types of | kinds of | forms of | such as | includes | including | encompass | "
            "umbrella | general category",
        ),
        _family(
            "special_case",
            "special case | limiting case | particular case | case of | zero | reduces to | "
            "what the | gives when | falls out of | restricted | specific case | narrow case "
            "| a case",
            "generalize | generalizes | generalization | extends | broader | contains as | "
            "includes as",
        ),
        _family(
            "part",
            "step in | step of | stage of | stage in | phase of | part of | component of | "
            "piece of | opening step | first step | first stage | final stage | stage | step "
            "| within | belongs to | element of | inside | component | segment of | portion "
            "of | sets the remainder",
            "consists of | includes | comprises | contains | made up of | composed of | has "
            "as | its stages | its steps | component is | begins with | starts with | opens "
            "with",
        ),
        _family(
            "explain",
            "explain | explains | explained | account for | accounts for | why | tells us | "
            "underlie | underlies | clarify | makes sense of | describe why | predict | "
            "govern | governs | rationale",
            "explained by | accounted for by | follows from | understood through | understood by",
        ),
        _family(
            "context",
            "context | backdrop | background | climate | framework | environment | "
            "atmosphere | conditions for | set the stage | sets the stage | paved the way | "
            "stage for | ground for | soil | backdrop against | circumstances | setting in "
            "| setting for | the setting | a setting | "
            "scene for | milieu",
            "against the backdrop | in the context of | took place amid | amid | in the wake "
            "of | shaped by | emerged from | grew out of | set against | took shape in",
        ),
        _family(
            "function",
            "enable | enables | enabling | allow | allows | make possible | makes possible | "
            "permit | serve | serves | function | role | purpose | job | on behalf | "
            "accomplish | deliver | support | help | so that | in order to | responsible for "
            "| achieve | supply the | power | powers | drive | make ... possible | makes ... "
            "possible | made ... possible",
            "enabled by | made possible by | depends on | relies on | rely on | thanks to | "
            "served by | purpose is | achieved by | accomplished by",
        ),
        _family(
            "input",
            "require | requires | required | need | needs | depend on | depends on | rely on "
            "| relies on | consume | consumes | use | uses | input | feed on | take in | "
            "takes in | draw on | draws on | fed by | supplied by | draws | run on | runs on "
            "| starting material | substrate | raw material | takes up | uses up | built from",
            "supply | supplies | provide | provides | feed | feeds | input for | input to | "
            "fuel for | deliver | delivers | hand | passes",
        ),
        _family(
            "output",
            "produce | produces | produced | generate | generates | yield | yields | output | "
            "make | makes | release | releases | create | creates | form | forms | supply | "
            "supplies | provide | provides | feed | feeds | deliver | delivers | input for | "
            "input to | raw material for | pass | passes | hand | hands | end product | fuel "
            "for | building blocks for",
            "produced by | come from | comes from | derived from | output of | generated by | "
            "made by | product of | formed by | released by | supplied by | provided by | fed "
            "by | depends on | relies on",
        ),
        _family(
            "promote",
            "activate | activates | promote | promotes | stimulate | stimulates | enhance | "
            "boost | increase | speed | accelerate | upregulate | switch on | switches on | "
            "turn on | induce | encourage | strengthen | amplify | spur | favor | favour | "
            "drive | power | powers | keep running | keeps running | keep ... going | keeps ... "
            "going | lets ... keep | let ... keep | lets ... continue | allows ... to continue | "
            "keep ... running | keeps ... running | keeps ... supplied",
            "activated by | promoted by | stimulated by | boosted by | induced by | spurred "
            "by | enhanced by",
        ),
        _family(
            "inhibit",
            "inhibit | inhibits | repress | represses | suppress | suppresses | block | "
            "blocks | shut down | shuts down | hold in check | holds in check | in check | "
            "prevent | prevents | reduce | slow | slows | curb | switch off | turn off | "
            "restrain | dampen | damp | silence | halt | keep in check | brake | throttle | "
            "limit | limits",
            "inhibited by | suppressed by | repressed by | blocked by | held in check | shut "
            "down by | prevented by | silenced by",
        ),
        _family(
            "regenerate",
            "regenerate | regenerates | replenish | replenishes | restore | restores | "
            "recycle | recycles | return | returns | free up | frees up | renew | renews | "
            "resupply | back to | reoxidize | re-oxidize | give back | gives back | reset | "
            "regenerating",
            "regenerated by | replenished by | restored by | recycled by",
        ),
        _family(
            "cycle",
            "cycle | cycles | loop | counterpart | counterparts | complement | complementary "
            "| mirror | reverse | opposite halves | two halves | each other | one another | "
            "back and forth | round trip | circle | feed each other | closes | returns | two "
            "sides | together | partner | halves | subsystem | subsystems | complete each "
            "other",
            symmetric=True,
        ),
        _family(
            "define",
            "defined by | defined as | definition | characterized by | means | "
            "consists in | meaning of | determined by | specified by | defined in terms of | "
            "defined through | given by",
            "defines | define | characterizes | determines | specifies | gives its definition "
            "| sets out",
        ),
        _family(
            "derive",
            "derived from | derive | derives | come from | comes from | origin | originate | "
            "stem from | stems from | descend | inherit | evolved from | evolve from | "
            "adapted from | based on | follows from | grew out of | arose from | emerged from "
            "| legacy of | borrowed | inherited",
            "gave rise to | give rise to | basis for | source of | ancestor of | parent of | "
            "evolved into | developed into | made possible",
        ),
        _family(
            "shared",
            "share | shares | shared | common | in common | same quantities | same variables "
            "| both | built from the same | thread | alike | same | similar | similarly | "
            "likewise | parallel | overlap | mutual | jointly | commonality",
            symmetric=True,
        ),
        _family(
            "pathology",
            "dysregulated in | dysregulation | disrupted in | go wrong | goes wrong | "
            "malfunction | abnormal | break down | fail | fails | pathological | disease | "
            "disorder | cancer | derail | uncontrolled | misregulated | runaway | defective | "
            "faulty | unchecked | breakdown | gone wrong | diseased | loss of control",
            "disrupts | derails | involves faulty | marked by",
        ),
        _family(
            "basis",
            "ideological basis | ideology | ideological | basis | justify | justified | "
            "justification | foundation | inspire | inspired | rationale | doctrine | "
            "underpin | underpinned | legitimize | legitimate | worldview | intellectual | "
            "theory behind | provided the ideas | gave the ideas | framework of ideas",
            "rested on | rests on | drew on | draws on | inspired by | justified by | "
            "grounded in | based on | built on",
        ),
        _family(
            "change",
            "result in | resulted in | led to | lead to | brought | transform | transformed | "
            "change | changed | reshape | reshaped | overthrow | toppled | ushered | produced "
            "| remade | revolution | collapse | shift | upheaval | fall of | end of | rise of",
            "resulted from | result of | caused by | came out of | consequence of",
        ),
        _family(
            "force",
            "force | gradient | derivative | slope | correspond | corresponds | pairs with | "
            "potential energy | negative gradient | arises from",
            "stored | potential of | associated with",
        ),
        _family(
            "location",
            "adjacent | compartment | compartments | next to | side by side | neighboring | "
            "neighbouring | across the membrane | membrane | matrix | cytoplasm | cytosol | "
            "nucleus | located | take place in | takes place in | happens in | occurs in | "
            "separate",
        ),
        _family(
            "feedback",
            "feedback | regulate | regulates | signal | signals | control | controls | tune | "
            "adjust | adjusts | report back | feeds back | modulate | modulates",
            "regulated by | controlled by | signalled by | signaled by",
        ),
        _family(
            "operate",
            "control | controls | controlled | command | commands | switch | switches | start "
            "| starts | stop | stops | turn on | turns on | operate | operates | "
            "drive | drives | actuate | actuates | open | opens | close | closes | acts on",
            "controlled by | commanded by | switched on by | started by | operated by | run by",
        ),
        _family(
            "observe",
            "monitor | monitors | watch | watches | observe | observes | receive | receives | "
            "read | reads | poll | polls | check | checks | track | tracks | measure | measures "
            "| sense | senses | detect | detects | display | displays | show | shows | report "
            "| reports | keep watch | knows | learn | learns | find out",
            "monitored by | watched by | read by | polled by | measured by | displayed by | shown "
            "by | reported to | sent to",
        ),
        _family(
            "transfer",
            "fill | fills | filling | supply | supplies | deliver | delivers | pump into | push "
            "| pushes | move | moves | send | sends | carry | carries | feed | feeds | drain "
            "into | drains into | flow into | flows into | recharge | recharges | top up | tops "
            "up",
            "filled by | supplied by | fed by | delivered by | comes from | drawn from | "
            "recharged by | receives water from",
        ),
        _family(
            "setpoint",
            "setpoint | set point | target value | target level | sends the target | sets the "
            "target | desired level",
            "takes its setpoint from | gets its target from",
        ),
    ]
}


def _load_label_rules() -> list[tuple[tuple[str, ...], str, bool]]:
    """Label words -> (family, flipped), in order (label_rules.toml): the first rule whose
    words all occur in the label wins."""
    rules = package_toml("evaluation.judges", "label_rules.toml")["rules"]
    return [(tuple(words.split()), family, flipped) for words, family, flipped in rules]


_LABEL_RULES = _load_label_rules()

# Words that narrow a family ("a political cause", "an economic cause"): an answer that gives
# the cause another of these qualifiers states a different edge.
QUALIFIERS = frozenset(
    content_stems(
        "political economic social ideological cultural military religious physical thematic"
    )
)
# The published format's label for a missing relation: the edge only needs both concepts.
MISSING_LABEL = "None"
# Label words that say nothing about the relation (kept out of a label's own cues).
_LABEL_FILLER = {"IS", "A", "AN", "THE", "OF", "TO", "IN", "FOR", "ARE", "WITH", "SAME"}


class Cue(BaseModel):
    model_config = ConfigDict(frozen=True)

    stems: tuple[str, ...]
    polarity: int  # +1: "A cue B" states A -> B; -1: "B cue A" states A -> B
    # A discontiguous cue ("make ... possible", "set ... in motion"): the words that must follow
    # the head within a few words of the same clause; the object usually stands in the gap.
    tail: tuple[str, ...] = ()


class Relation(BaseModel):
    """How an answer states one label: its family, direction rule and cue phrases."""

    model_config = ConfigDict(frozen=True)

    label: str
    family: str  # a FAMILIES name, or "label-words" when no family fits
    symmetric: bool
    cues: tuple[Cue, ...]
    label_stems: frozenset[str]  # the label's own content words
    qualifier: frozenset[str] = frozenset()  # "political" in IS_A_POLITICAL_CAUSE_OF
    any_relation: bool = False  # the published format's missing label `None`: any statement


def _cue(text: str, polarity: int) -> Cue:
    head, _, tail = text.partition("...")
    return Cue(stems=tuple(stems(head)), polarity=polarity, tail=tuple(stems(tail)))


def family_of(label: str) -> tuple[str, bool] | None:
    parts = set(label.upper().split("_"))
    for need, family, flipped in _LABEL_RULES:
        if set(need) <= parts:
            return family, flipped
    return None


@lru_cache(maxsize=4096)
def relation_for(label: str, description: str | None = None) -> Relation:
    """The cues of `label`, from its family and, where given, its palette description."""
    words = [w for w in label.upper().split("_") if w and w not in _LABEL_FILLER]
    label_stems = frozenset(s for w in words for s in content_stems(w))
    found = family_of(label)
    desc_stems = [s for s in content_stems(description or "") if len(s) > 2 and s not in {"a", "b"}]
    if found is None and description:
        found = _family_from_description(desc_stems)
    cues: list[Cue] = []
    if found is not None:
        family, flipped = found
        fam = FAMILIES[family]
        sign = -1 if flipped else 1
        cues += [_cue(t, sign) for t in fam.forward]
        cues += [_cue(t, -sign) for t in fam.reverse]
        symmetric = fam.symmetric
        name = family
    else:
        symmetric = False
        name = "label-words"
    if found is None:  # the label's and the description's own words are the only clues
        cues += [Cue(stems=(s,), polarity=1) for s in label_stems if s not in STOPWORDS]
        cues += [Cue(stems=(s,), polarity=1) for s in desc_stems[:6]]
    unique = tuple(dict.fromkeys(c for c in cues if c.stems))
    return Relation(
        label=label,
        family=name,
        symmetric=symmetric,
        cues=unique,
        label_stems=label_stems,
        qualifier=label_stems & QUALIFIERS,
        any_relation=label == MISSING_LABEL,
    )


def _family_from_description(desc: list[str]) -> tuple[str, bool] | None:
    """The family whose single-word cues the description uses most (None when none)."""
    best, best_n = None, 0
    bag = set(desc)
    for fam in FAMILIES.values():
        words = {c for t in fam.forward for c in stems(t) if c not in STOPWORDS}
        n = len(words & bag)
        if n > best_n:
            best, best_n = fam.name, n
    return (best, False) if best else None


def relation_meanings(document: object) -> dict[str, str]:
    """label -> description from a relation palette (read by kg.palette, the one palette
    reader). Unreadable palettes give {} (the labels' own words still apply)."""
    from kg.palette import relation_meanings as meanings

    return meanings(document)
