#!/usr/bin/env python3
"""Makes the SentencePiece fixtures of tests/data/tokenizers/spm/: two small Unigram models
trained with Debian's python3-sentencepiece, and the ids and pieces it gives for 60 texts
(accents, CJK, digits, runs of spaces, tabs and newlines, NFKC-folded forms, characters no piece
covers). attn-viz's own reader of the model files must give the same ids (tests/unit/tokenizers/
test_sentencepiece.cpp).

    /usr/bin/python3 tests/data/make_sentencepiece_fixtures.py

  nfkc.model      nmt_nfkc normalisation (its precompiled charsmap in the file), default
                  add_dummy_prefix / remove_extra_whitespaces, unknown characters as <unk>
  bytes.model     the same with byte_fallback (unknown characters as <0xNN> pieces), a
                  user-defined symbol and a control symbol, and no dummy prefix
  identity.model  the identity normalisation (no charsmap), whitespace kept as it is
  rules.model     a small charsmap from rules.tsv (full-width a–c, ① → 1, "Th" → "T h" and
                  "The" → "THE", so the longest match must win); small enough to seed the fuzzer
The training text is Debian's GPL-3 licence (base-files) plus the multilingual lines below.
"""
import io
import json
import os

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tokenizers", "spm")

LINES = [
    "El niño comió pan con mantequilla en la mañana.",
    "Y dijo Dios: Sea la luz; y fué la luz.",
    "Le garçon a mangé du pain à l'école, où il était très content.",
    "Über die Brücke gehen wir zur Straße am Fluß.",
    "São Paulo é a maior cidade do Brasil; ação, coração, irmã.",
    "机器学习很有趣。我们今天学习注意力机制。",
    "日本語のテキストも少しあります。",
    "In the beginning God created the heaven and the earth.",
    "Numbers like 3.14159, 2024-11-26 and 1,000,000 appear here.",
]

TEXTS = [
    "Hello world",
    "In the beginning God created the heaven and the earth.",
    "  leading spaces and  double  spaces   and trailing   ",
    "Tabs\there\tand\nnewlines\n\nand \r\n windows",
    "Émigré naïve café Ångström façade — über straße",
    "El niño comió pan con mantequilla en la mañana.",
    "Y dijo Dios: Sea la luz; y fué la luz.",
    "Le garçon a mangé du pain à l'école.",
    "机器学习很有趣。",
    "日本語のテキスト",
    "한국어 문장",
    "emoji: 😀🎉 and symbols ★☆♥",
    "Numbers: 3.14159, 1,000,000 and 2024-11-25 or 0x1F and 12345678901234567890",
    "ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ １２３",
    "ligatures ﬁ ﬂ ﬀ and ① ② ③ and ㎏ ㎞",
    "Ⅻ ½ ¼ ² ³ ™ ℃",
    "COPYRIGHT LICENSE GENERAL PUBLIC",
    "the the the the the",
    "a",
    " ",
    "   ",
    "x  y",
    "\u00a0non-breaking\u00a0spaces\u2003em\u2009thin",
    "zero\u200bwidth\u200cjoiners\u200d",
    "soft\u00adhyphen",
    "combining e\u0301 versus é",
    "Å vs A\u030a",
    "Ωmega ω and µ vs μ",
    "Grüße aus Köln",
    "ÀÁÂÃÄÅàáâãäå",
    "ÇçÑñ",
    "Ελληνικά κείμενα",
    "Русский текст здесь",
    "עברית",
    "العربية",
    "हिन्दी",
    "ไทย",
    "\u0001control\u0007chars\u001f",
    "tab\tonly",
    "end with newline\n",
    "\nstarts with newline",
    "punctuation!!! ??? ... ,,, ;;; :::",
    "(brackets) [square] {curly} <angle>",
    "quotes \"double\" 'single' «guillemets» “curly”",
    "email@example.com http://www.gnu.org/licenses/",
    "C++ and C# and F#",
    "$100 €50 £20 ¥1000",
    "100% 50‰",
    "snake_case camelCase kebab-case",
    "UPPER lower MiXeD",
    "0123456789",
    "1 2 3 4 5 6 7 8 9 10",
    "You should have received a copy of the GNU General Public License",
    "warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE",
    "São Paulo é a maior cidade do Brasil",
    "Über die Brücke",
    "我们今天学习注意力机制",
    "mixed 中文 and English 混合",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math letters 𝐀𝐁𝐂",
    "rare 龘 and 𠀋 characters",
    "<sep> user symbol and </s> control and <unk> text",
    "The Theme of Th and ｂａｃ ①",
]


def corpus():
    text = open("/usr/share/common-licenses/GPL-3", encoding="utf-8").read()
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines + LINES * 5


def train(name, **options):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus()), model_writer=model,
                                   model_type="unigram", vocab_size=options.pop("vocab_size", 600),
                                   num_threads=1, seed_sentencepiece_size=100000,
                                   character_coverage=options.pop("character_coverage", 0.995),
                                   **options)
    path = os.path.join(OUT, name + ".model")
    with open(path, "wb") as f:
        f.write(model.getvalue())
    return path


def expected(path):
    sp = spm.SentencePieceProcessor(model_file=path)
    return {"producer": f"python3-sentencepiece {spm.__version__}", "model": os.path.basename(path),
            "texts": TEXTS,
            "ids": [sp.encode(t) for t in TEXTS],
            "pieces": [sp.encode(t, out_type=str) for t in TEXTS]}


RULES = """FF41\t61
FF42\t62
FF43\t63
2460\t31
54 68\t54 20 68
54 68 65\t54 48 45
"""


def main():
    os.makedirs(OUT, exist_ok=True)
    rules = os.path.join(OUT, "rules.tsv")
    with open(rules, "w") as f:
        f.write(RULES)
    models = [
        train("nfkc"),
        train("bytes", byte_fallback=True, user_defined_symbols=["<sep>"], control_symbols=["<cls>"],
              add_dummy_prefix=False, vocab_size=700),
        train("identity", normalization_rule_name="identity", remove_extra_whitespaces=False,
              vocab_size=500),
        train("rules", normalization_rule_tsv=rules, vocab_size=400),
    ]
    for path in models:
        with open(path[:-len(".model")] + ".ids.json", "w", encoding="utf-8") as f:
            json.dump(expected(path), f, ensure_ascii=False, indent=0)
            f.write("\n")
        print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
