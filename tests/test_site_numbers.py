r"""Every number the documentation site's prose states is traced to what computes or measures it.

The pages are those the site renders from Markdown (``docs/*.md``, ``docs/user_guide/*.md``)
and ``README.md``, whose sections are the landing page's long form; the generated API pages
and the changelog (a record, not a claim about the code) are skipped. This is the site's
version of ``tests/test_notebook_form.py::untraced_numbers``, whose number pattern it reuses.
Read without sampling (the fast suite).

Which numbers are the prose's
-----------------------------
A page is split into prose and code. Code is every fenced block (```` ``` ```` or ``:::``)
except a ``{figure}``, whose caption is prose (its ``:option:`` lines are not). In the prose
these are not numbers the page states, and are blanked before the search:

* inline code, math (``$...$``, ``$$...$$``), HTML comments, link targets ``](...)`` and bare
  URLs: code, formulas and addresses, not claims;
* a list item's or a heading's numbering (``1. ``, ``## 3.``), an issue or pull request
  (``#27``, ``issue 28``), a version string (``0.2.1``, ``v1.2``, ``Python 3.12``, "before
  0.2") and an arXiv identifier, a name with a number (``UTF-16``, ``Windows-1252``), a
  binary coding (``0/1``, ``1/0``) or the undefined ``0/0``: names, not results;
* a four-digit year 19xx or 20xx (a citation's year) and a date (``2026-11-27``);
* a seed (``seed 0``, ``seeds 1 and 2``): the name of a random stream, not a result (the
  numbers drawn with it are traced like any other);
* a load average (``load 4.9``, ``load average 0.7``): the machine's state beside a timing,
  a part of the timing's record like the date;
* a timing or a memory size (a number followed by ``ms``, ``s``, ``min``, ``h``, ``MB`` or
  ``GB``, or ``x``/``times`` after such a number): measured on the machine the page names by
  the benchmark script it names, and not stored in any file a test could read.

How a number is traced
----------------------
Each remaining number must be traced by one of, in this order:

(c) **a fact** (``FACTS``): a snippet of the page's prose, the number in it and a Python
    expression that computes the number from bayescm (a prior's concentration, the paper's
    data, a closed form such as the rule of three); the test evaluates it and compares it with
    the prose at the precision printed (a percentage against 100 times the value). Priors,
    defaults and the paper's data are traced this way: the prose says what the code does. A
    prior written as a formula (``$\mu \sim \mathcal{N}(0, 2^2)$``) is checked by a fact too,
    read from the page's math (``math=True``), though math is otherwise not read.
(a) **the page's own code**: a token of its fenced blocks, doctest outputs included (the
    ``>>>`` outputs are compared by doctest, the other Python blocks run in
    ``tests/test_doc_examples.py``).
(b) **a measured file the section cites by path** (``benchmarks/*.md``/``*.json``, a notebook
    and its stored outputs, ``models/*.toml``, ``bayescm/data/*.csv``, ``tests/data/*.csv``)
    or a notebook it names ("notebook 07"): a token of that file. The file traces the numbers
    of the section (heading to heading) that cites it, not the whole page's: page-wide, a
    dozen cited notebooks match almost any number. A test or benchmark script the
    page cites (``tests/test_stratified.py``, ``benchmarks/calibration_study.py``) traces the
    numbers of a study's *design* (sizes, true values, seeds) it holds; a study's measured
    outcome is traced only when a stored file, or an assertion in the script, holds it.
(d) **the allow-list** (``ALLOWED``): numbers that are not results (a K in an example, 0.95
    as a chosen HDI probability, a count in a definition), each snippet with its reason.

A token matches when it is the same number (``15,123`` and ``15123`` are one), when it is a
fraction and the prose prints it as a percentage at its precision (``0.433`` and ``43 %``),
or when the prose rounds it and keeps at least two decimals (``0.9447`` and ``0.94``).

Numbers not yet traced would be listed per page in ``UNTRACED`` (a debt the test keeps from
growing: a new untraced number fails the test, and so does a listed one that is now traced or
gone). The list is empty: the outcomes of slow studies and benchmark runs that the prose quotes
are stored under ``benchmarks/`` by the scripts that measure them (``exact_coverage_table.md``,
``calibration_table.md``, ``coverage_table.md``, ``performance.md``, ...), and the pages cite
those files.
Numbers quoted from one seed's sampler output say so ("seed 0") and are recomputed by a fact
with that seed, or are stated as approximate ("about") at the precision the seed does not
move, or are replaced by the exact value.

Run ``python tests/test_site_numbers.py`` to print the count of numbers per trace kind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from site_facts import ALLOWED, FACTS, UNTRACED, Fact
from test_notebook_form import _NUMBER

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md",
         *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "changelog.md"),
         *sorted((ROOT / "docs" / "user_guide").glob("*.md"))]
_FENCE = re.compile(r"^\s*(`{3,}|:{3,})\s*(\{[\w-]+\}|[\w-]*)")
_IGNORED = re.compile(
    r"<!--.*?-->|`[^`]*`|\$\$.*?\$\$|\$[^$]+?\$|\]\([^)]*\)|<?https?://[^\s>)]*"
    r"|^\s*(?:#+\s*\d+\s*[.·]|\d+\.\s)|#\d+|\bv?\d+\.\d+\.\d+\b|\bv\d+(?:\.\d+)*\b"
    r"|\b(?:Python|python|before|since|after|version|bayescm|PyMC|ArviZ|NumPy|pandas)"
    r" (?:>= ?)?\d+(?:\.\d+)+\b"
    r"|\b[01]/[01]\b|\b[A-Z][A-Za-z]*-\d+\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{4}\.\d{5}\b"
    r"|\b[Nn]otebooks? \d+(?:(?:,| and) \d+)*"
    r"|\b[Ss]eeds?\s+\d+(?:(?:,|\s+and)\s+\d+)*|\b[Ii]ssues?\s+\d+\b"
    r"|\bload(?:\s+average)?(?:\s+about)?\s+\d+(?:\.\d+)?"
    r"|\b\d[\d,]*(?:\.\d+)?\s*(?:ms|s|min|h|MB|GB)\b(?:[,;]? \d[\d,]*(?:\.\d+)?\s*(?:x|times)\b)?"
    r"|\b\d+(?:\.\d+)?\s*(?:x|times) (?:the|as|faster|slower|longer)\b",
    re.MULTILINE | re.DOTALL)
"""What is blanked from the prose before its numbers are read (the module docstring's list)."""
_CITED = re.compile(r"((?:benchmarks|notebooks|models|bayescm/data|tests/data)/[\w.-]+\."
                    r"(?:md|json|ipynb|toml|csv)|(?:tests|benchmarks)/[\w-]+\.py)")
_NAMED_NOTEBOOK = re.compile(r"\b[Nn]otebook (\d{2})\b")
_FRACTION = re.compile(r"(?<![\w./])\d+/\d+(?![\w/])")
_TOKEN = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def split(text: str) -> tuple[str, str]:
    """A page's prose and its code (fenced blocks; a figure's caption counts as prose)."""
    prose: list[str] = []
    code: list[str] = []
    fence = kind = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence is None and match:
            fence, kind = match.group(1), match.group(2)
            continue
        if fence is not None and line.strip() == fence:
            fence = kind = None
            continue
        if fence is None:
            prose.append(line)
        elif kind == "{figure}":
            if not line.lstrip().startswith(":"):
                prose.append(line)
        else:
            code.append(line)
    return "\n".join(prose), "\n".join(code)


def prose_of(text: str) -> str:
    """The prose with what is not a stated number blanked, its whitespace collapsed."""
    return re.sub(r"\s+", " ", _IGNORED.sub(" ", split(text)[0]))


def stated_numbers(prose: str) -> list[tuple[str, int]]:
    """The numbers of blanked prose with their positions (a citation's year left out).

    A fraction (``1/2``) is one number.
    """
    found = [(m.group(0), m.start()) for m in _FRACTION.finditer(prose)]
    fractions = [(at, at + len(f)) for f, at in found]
    for match in _NUMBER.finditer(prose):
        if any(s <= match.start(1) < e for s, e in fractions):
            continue
        plain = match.group(1).replace(",", "")
        if len(plain) == 4 and plain[:2] in ("19", "20"):
            continue
        found.append((match.group(1), match.start(1)))
    return sorted(found, key=lambda f: f[1])


def value_of(number: str) -> float:
    """A stated number's value (``15,123``, ``0.94``, ``1/2``)."""
    plain = number.replace(",", "")
    if "/" in plain:
        top, bottom = plain.split("/")
        return float(top) / float(bottom) if float(bottom) else float("nan")
    return float(plain)


def places_of(number: str) -> int:
    """The decimals a stated number is printed with."""
    return len(number.split(".")[1]) if "." in number else 0


def tokens(text: str) -> set[str]:
    """The numbers of a source text (code, outputs, a measured file), thousands joined."""
    text = re.sub(r"(?<=\d)[,_\u202f](?=\d{3})", "", text)
    return set(_TOKEN.findall(text)) | set(_FRACTION.findall(text))


def matches(number: str, percent: bool, pool: set[str]) -> bool:
    """Whether a prose number is one of the pool's (see the module docstring)."""
    plain = number.replace(",", "")
    if plain in pool:
        return True
    if "/" in plain:
        return False
    places, value = places_of(plain), value_of(plain)
    for token in pool:
        try:
            x = float(token)
        except ValueError:
            continue
        if percent and 0 <= x <= 1 and abs(round(100 * x, places) - value) < 1e-9:
            return True
        if places >= 2 and "." in token and len(token.split(".")[1]) > places \
                and abs(round(x, places) - value) < 1e-9:
            return True
    return False


def cited_files(text: str) -> list[Path]:
    """The measured files a page cites by path (links, inline code, literalinclude), and the
    notebooks it names ("notebook 07")."""
    files = {ROOT / m for m in _CITED.findall(text) if (ROOT / m).is_file()}
    for number in _NAMED_NOTEBOOK.findall(text):
        files |= set((ROOT / "notebooks").glob(f"{number}_*.ipynb"))
    return sorted(files)


def fact_holds(fact: Fact) -> bool:
    """Whether the fact's computed value prints as the prose prints it."""
    value = fact.compute() * (100 if fact.percent else 1)
    if "/" in fact.number:
        return abs(value - value_of(fact.number)) < 1e-9
    return abs(round(value, places_of(fact.number)) - value_of(fact.number)) < 1e-9


def _spans(prose: str, snippets) -> list[tuple[int, int]]:
    spans = []
    for snippet in snippets:
        start = prose.find(snippet)
        while start >= 0:
            spans.append((start, start + len(snippet)))
            start = prose.find(snippet, start + 1)
    return spans


def sections(text: str) -> list[str]:
    """A page cut before each heading (``#`` lines outside fenced blocks)."""
    parts: list[list[str]] = [[]]
    fence = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None and line.startswith("#"):
            parts.append([])
        parts[-1].append(line)
    return ["\n".join(part) for part in parts]


def trace(page: str, text: str, facts=None, allowed=None) -> dict[str, list[str]]:
    """Each stated number of a page under the kind that traces it (``a``-``d``) or ``none``.

    The page's code traces numbers anywhere on it; a cited file, those of the section (from one
    heading to the next) that cites it.
    """
    facts = [f for f in (FACTS.get(page, []) if facts is None else facts) if not f.math]
    allowed = ALLOWED.get(page, {}) if allowed is None else allowed
    code_pool = tokens(split(text)[1])
    kinds: dict[str, list[str]] = {"a": [], "b": [], "c": [], "d": [], "none": []}
    for section in sections(text):
        prose = prose_of(section)
        file_pool: set[str] = set()
        for path in cited_files(section):
            file_pool |= tokens(path.read_text(encoding="utf-8"))
        fact_spans = {(s, e, f.number) for f in facts for s, e in _spans(prose, [f.snippet])}
        allow_spans = _spans(prose, allowed)
        for number, at in stated_numbers(prose):
            after = prose[at + len(number):]
            percent = bool(re.match(r"(?:\s*[-–]\s*\d+(?:\.\d+)?)?\s*%", after))
            if any(s <= at < e and number == n for s, e, n in fact_spans):
                kind = "c"
            elif matches(number, percent, code_pool):
                kind = "a"
            elif matches(number, percent, file_pool):
                kind = "b"
            elif any(s <= at < e for s, e in allow_spans):
                kind = "d"
            else:
                kind = "none"
            kinds[kind].append(number)
    return kinds


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_stated_number_is_traced(page: Path) -> None:
    name = _name(page)
    untraced = trace(name, page.read_text(encoding="utf-8"))["none"]
    listed = UNTRACED.get(name, [])
    new = sorted(set(untraced) - set(listed))
    assert not new, (
        f"{name}: the prose states {new}, which no fact, code block, cited measured file or "
        "allow-list entry traces; compute it in a block, cite the file it comes from, add a "
        "fact to tests/site_facts.py, or fix the number.")
    done = sorted(set(listed) - set(untraced))
    assert not done, f"{name}: {done} are now traced or gone: remove them from UNTRACED"


@pytest.mark.parametrize("fact", [f for page in FACTS.values() for f in page],
                         ids=lambda f: f"{f.page}:{f.number}")
def test_fact_is_what_the_code_computes(fact: Fact) -> None:
    text = (ROOT / fact.page).read_text(encoding="utf-8")
    prose = re.sub(r"\s+", " ", text) if fact.math else prose_of(text)
    assert fact.snippet in prose, f"{fact.page}: no longer says {fact.snippet!r}; update FACTS"
    assert fact.number in [n for n, _ in stated_numbers(fact.snippet)], \
        f"{fact.page}: {fact.number} is not a stated number of {fact.snippet!r}"
    value = fact.compute() * (100 if fact.percent else 1)
    assert fact_holds(fact), (
        f"{fact.page}: the prose says {fact.number} ({fact.snippet!r}); the code computes "
        f"{value:.6g} ({fact.why})")


def test_allowed_snippets_are_on_their_pages() -> None:
    stale = [(page, snippet) for page, entries in ALLOWED.items() for snippet in entries
             if snippet not in prose_of((ROOT / page).read_text(encoding="utf-8"))]
    assert not stale, f"allow-list entries no longer on their pages: {stale}"
    assert all(reason.strip() for entries in ALLOWED.values() for reason in entries.values())


def test_the_number_check_can_fail() -> None:
    """A wrong number in the prose is caught; code, outputs, links and years are not read."""
    page = ("# Title\n\nThe HDI is 43.2 %, not 51 %; `code 99`, $x = 7$, [a](https://x.org/8)"
            " and N = 15,123 (Smith 2021) are stated, the first two of them computed.\n\n"
            "```python\n>>> print(f'{0.432:.1%}')\n43.2%\n```\n")
    assert trace("x.md", page, facts=[], allowed={})["none"] == ["51", "15,123"]
    assert trace("x.md", page, facts=[], allowed={"N = 15,123": "a size"})["none"] == ["51"]


def test_a_wrong_fact_fails() -> None:
    """A fact whose computed value the prose misprints is caught at the printed precision."""
    assert fact_holds(Fact("x.md", "accuracy 70 %", "70", lambda: 31 / 44, "31/44", True))
    assert not fact_holds(Fact("x.md", "accuracy 78 %", "78", lambda: 31 / 44, "31/44", True))
    assert not fact_holds(Fact("x.md", "2 per row", "2", lambda: 4 / 3, "weak, K = 3"))


def test_a_wrong_measured_number_fails(tmp_path: Path) -> None:
    """A number copied from a cited file must be in it; a timing is not read."""
    page = ("The table in `benchmarks/coverage_table.md` says 0.93 and 0.123456; "
            "the run took 3.9 s.\n")
    kinds = trace("x.md", page, facts=[], allowed={})
    assert kinds["none"] == ["0.123456"]


if __name__ == "__main__":
    totals = {"a": 0, "b": 0, "c": 0, "d": 0, "none": 0}
    for page in PAGES:
        for kind, found in trace(_name(page), page.read_text(encoding="utf-8")).items():
            totals[kind] += len(found)
    print(totals)
