// attn-viz man: the manual page (roff, section 1), made from the parser's own commands and
// options so it never drifts from --help. CMake runs it at build time; `cmake --install`
// puts the result in share/man/man1/attn-viz.1.
#include <fmt/format.h>

#include "attnviz/version.h"
#include "cli_model.h"
#include "commands.h"
#include "text/utf8.h"

namespace attnviz::cli {
namespace {

// Text for roff: backslashes escaped, a line never starting with '.' or '\'', and every
// non-ASCII character as \[uXXXX] (troff reads bytes, not UTF-8).
std::string roff(const std::string& s) {
  std::string out;
  bool line_start = true;
  const std::u32string cps = decode_utf8(s, "manual");
  for (char32_t c : cps) {
    if (line_start && (c == U'.' || c == U'\'')) out += "\\&";
    if (c == U'\\') {
      out += "\\e";
    } else if (c >= 0x80) {
      out += fmt::format("\\[u{:04X}]", static_cast<std::uint32_t>(c));
    } else {
      out += static_cast<char>(c);
    }
    line_start = c == U'\n';
  }
  return out;
}

// A sentence end before more text.
std::string stop(const std::string& s) {
  return !s.empty() && s.back() == '.' ? s + " " : s + ". ";
}

// An option name in bold with its hyphens as real minus signs (\-), as man pages write them.
std::string bold_name(const std::string& n) {
  std::string out = "\\fB";
  for (char c : n) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out + "\\fR";
}

std::string option_entry(const option_model& o) {
  std::string head;
  for (std::size_t i = 0; i < o.names.size(); ++i) head += (i ? ", " : "") + bold_name(o.names[i]);
  if (!o.value.empty()) head += " \\fI" + roff(o.value) + "\\fR";
  std::string body = o.description;
  if (!o.choices.empty() && o.description.find(o.choices.front()) == std::string::npos) {
    body = stop(body) + "One of: ";
    for (std::size_t i = 0; i < o.choices.size(); ++i) body += (i ? ", " : "") + o.choices[i];
  }
  if (!o.default_value.empty()) body = stop(body) + "Default: " + o.default_value + ".";
  body = roff(body);
  return ".TP\n" + head + "\n" + body + "\n";
}

std::string options_section(const command_model& c) {
  std::string out, group = "\x01";
  for (const auto& o : c.options) {
    if (o.names.front() == "--help" || o.names.front() == "--version") continue;
    if (o.group != group && !o.group.empty() && o.group != "Options") {
      out += fmt::format(".PP\n\\fI{}\\fR\n", roff(o.group));
    }
    group = o.group;
    out += option_entry(o);
  }
  return out;
}

std::string man_page(const std::vector<command_model>& commands) {
  const command_model& prog = commands.front();
  std::string t;
  t += fmt::format(".TH ATTN-VIZ 1 \"\" \"attn-viz {}\" \"User Commands\"\n", version);
  t += ".SH NAME\nattn-viz \\- see what an attention mechanism does to a sentence\n";
  t += ".SH SYNOPSIS\n.B attn-viz\n[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR]\n";
  t += ".SH DESCRIPTION\n" + roff(prog.description) + "\n";
  t += ".PP\nEvery variant goes through one pipeline: tokens and word vectors, optional "
       "projections, stage 1 scores e_ij, stage 2 alignment weights a_ij (each row sums to 1, "
       "masked keys are exactly 0), stage 3 contexts c_i. Outputs are heatmaps (PNG, SVG, the "
       "terminal), data (JSON, NumPy .npy) and an offline HTML page.\n";
  t += ".SH GLOBAL OPTIONS\nThese may come before or after the command.\n" + options_section(prog);
  t += ".SH COMMANDS\n";
  for (std::size_t i = 1; i < commands.size(); ++i) {
    const command_model& c = commands[i];
    t += fmt::format(".SS \"attn-viz {}\"\n{}\n", c.name, roff(c.description));
    t += options_section(c);
    if (!c.footer.empty()) {
      std::string footer = c.footer;
      while (!footer.empty() && footer.front() == '\n') footer.erase(0, 1);
      t += ".PP\n.nf\n" + roff(footer) + "\n.fi\n";
    }
  }
  t += R"(.SH EXIT STATUS
.TP
.B 0
Success.
.TP
.B 2
Bad usage or bad input: one line on standard error names the flag, or the file with its line or
byte offset, and what was expected. No output file is written or changed.
.TP
.B 1
An internal error (a bug, or the environment failing).
.SH ENVIRONMENT
.TP
.B OMP_NUM_THREADS
Threads for the parallel kernels when \-\-threads is not given.
.TP
.B ATTNVIZ_ISA
Kernel instruction set (generic, avx2, avx512) when \-\-isa is not given.
.TP
.B ATTNVIZ_BLOCKING
Forces the kernels' cache blocking, which is otherwise derived from the caches found at run
time: KEY=SIZE entries, comma-separated, with keys l1d, l2, l3 (the caches to derive from) and
panels, panel_depth, mc, panel_a, attention (the sizes themselves), SIZE a count or bytes with K, M or G;
for example l2=512K,l3=32M. Results keep their bytes under every blocking; only speed changes.
attn\-viz \-\-version prints the blocking in use.
.TP
.B ATTNVIZ_CACHE_DIR\fR, \fBXDG_CACHE_HOME\fR, \fBHOME
Where \-\-cache keeps its copies of embedding files: $ATTNVIZ_CACHE_DIR, else
$XDG_CACHE_HOME/attn\-viz, else ~/.cache/attn\-viz.
.TP
.B NO_COLOR\fR, \fBCOLORTERM
\-\-term draws plain numbers when NO_COLOR is set, and 24\-bit colour when COLORTERM=truecolor.
.SH FILES
.TP
.I share/attn\-viz/samples/
The bundled sample: GloVe vectors for about a thousand common words, sentences and pairs.
.SH EXAMPLES
.nf
attn\-viz demo
attn\-viz run \-\-text "the cat sat on the floor because it was tired" \-\-png cat.png
attn\-viz compare \-\-text "..." \-\-scores all \-\-png all.png
attn\-viz explain \-\-text "..." \-\-query it
attn\-viz run \-\-input sentences.txt \-\-out\-dir maps \-\-formats png,json,html
.fi
.SH SEE ALSO
The README of attn\-viz, with pictures of every figure it makes; \fBattn\-viz list\fR for
every variant with its formula and paper.
)";
  return t;
}

}  // namespace

action setup_man(CLI::App& app) {
  app.add_subcommand("man",
                     "Print the manual page (roff): attn-viz man | man -l -  (cmake --install "
                     "puts it in share/man/man1)");
  return [&app] {
    fmt::print("{}", man_page(describe(app)));
    return 0;
  };
}

}  // namespace attnviz::cli
