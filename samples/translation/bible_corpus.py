#!/usr/bin/env python3
"""The verse-aligned Spanish-English corpus attn-viz's translation demo is trained and scored on,
read from Debian's SWORD modules with `diatheke -f plaintext` (packages sword-text-sparv:
Reina-Valera 1909, module spaRV1909eb; sword-text-kjv: King James Version, module
engKJV2006eb; diatheke). Both tag word groups with Strong's numbers,
    <w savlm="strong:H0430">Dios</w>   <->   <w savlm="strong:H0430">God</w>,
so two words of a verse pair that share a number translate the same original word: a gold word
alignment the translators made, independent of any model.

Words are the verse's whitespace-separated tokens (punctuation stays on its word, as attn-viz
merges sub-words at their word starts). Gold pairs (source word i, target word j):
  sure      the number occurs once in each verse and each side's group is one word
  possible  every other pair of words of two groups that share a number
Untagged words (articles, "And", punctuation, the KJV's added words) align to nothing.
"""
import html
import re
import subprocess

SPANISH, ENGLISH = "spaRV1909eb", "engKJV2006eb"
# the books held out of training: their verses are the test set
HELD_OUT = ["Ruth", "Jonah", "Philemon", "II John", "III John", "Jude"]
# the dev verses: every hundredth verse of the training books (thresholds, sizes and recipes are
# chosen on them, never on the held-out books)
DEV_EVERY = 100


def dev_split(training_verses):
    """(the verses left to train on, the dev verses) of the training books' verses in order."""
    return ([v for k, v in enumerate(training_verses) if k % DEV_EVERY],
            training_verses[::DEV_EVERY])

# "Genesis 1:1: …", "II John 1:3: …", "Song of Solomon 2:1: …"; diatheke may put a psalm title's
# markup before the reference (and repeats the last one before later books' first verses):
# searched, not matched at the start, and what comes before it dropped
VERSE = re.compile(r"(?:^|\s)((?:I{1,3} )?[A-Z][a-z]+(?: of [A-Z][a-z]+)?) (\d+):(\d+): (.*)$")
TOKEN = re.compile(r"<w\s+([^>]*)>(.*?)</w>|<[^>]+>|([^<]+)", re.S)
STRONG = re.compile(r"strong:([HG]\d+)")


def read_module(module):
    """{(book, chapter, verse): markup} for the whole Bible."""
    out = subprocess.run(["diatheke", "-b", module, "-f", "plaintext", "-k", "Gen 1:1-Rev 22:21"],
                         capture_output=True, text=True, check=True).stdout
    verses = {}
    for line in out.splitlines():
        m = VERSE.search(line)
        if m:
            verses[(m.group(1), int(m.group(2)), int(m.group(3)))] = m.group(4)
    return verses


def words_and_numbers(markup):
    """The verse's words and, per word, the Strong's numbers of the group it belongs to (a word
    split across a tag boundary is joined); groups as lists of word indexes per number."""
    pieces = []  # (text, numbers)
    for m in TOKEN.finditer(markup):
        if m.group(1) is not None:
            pieces.append((html.unescape(m.group(2)), tuple(STRONG.findall(m.group(1)))))
        elif m.group(3) is not None:
            pieces.append((html.unescape(m.group(3)), ()))
    words, numbers = [], []
    glue = False  # the previous piece ended inside a word
    for text, nums in pieces:
        text = re.sub(r"<[^>]+>", "", text)
        parts = text.split(" ")
        for k, part in enumerate(parts):
            if not part:
                glue = False
                continue
            if k == 0 and glue and words:
                words[-1] += part
                numbers[-1] = tuple(sorted(set(numbers[-1]) | set(nums)))
            else:
                words.append(part)
                numbers.append(nums)
            glue = True
        glue = bool(parts) and parts[-1] != ""
    return words, numbers


def plain(markup):
    return " ".join(words_and_numbers(markup)[0])


def gold(es_markup, en_markup):
    """Pharaoh pairs: ([(i, j)] sure, [(i, j)] possible), i a Spanish word, j an English one."""
    es_words, es_nums = words_and_numbers(es_markup)
    en_words, en_nums = words_and_numbers(en_markup)
    groups = lambda nums: {n: [i for i, ns in enumerate(nums) if n in ns] for n in {n for ns in nums for n in ns}}
    es_groups, en_groups = groups(es_nums), groups(en_nums)
    sure, possible = set(), set()
    for n in es_groups.keys() & en_groups.keys():
        es_i, en_j = es_groups[n], en_groups[n]
        one = len(es_i) == 1 and len(en_j) == 1 and len(es_nums[es_i[0]]) == 1 and len(en_nums[en_j[0]]) == 1
        for i in es_i:
            for j in en_j:
                (sure if one else possible).add((i, j))
    possible -= sure
    return sorted(sure), sorted(possible)


def corpus():
    """[(key, spanish markup, english markup)] for every verse both modules have, in order."""
    es, en = read_module(SPANISH), read_module(ENGLISH)
    return [(k, es[k], en[k]) for k in es if k in en and plain(es[k]) and plain(en[k])]
