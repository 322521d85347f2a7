#pragma once
/**
 * Text from catalogs, configs and scenarios made safe to show: on a terminal (the CLI's table,
 * errors and warnings) and in a spreadsheet (CSV). One escaper and one CSV cell writer, used by
 * the core's CSV and by the CLI.
 */
#include <string>
#include <string_view>

namespace gpucalc {

/**
 * `text` with everything that could rewrite a screen or hide a word made visible: C0 controls
 * (NUL, ESC, BEL, CR, LF, TAB...) and DEL as \xNN, C1 controls (U+0080..U+009F; CSI U+009B
 * starts an escape sequence on some terminals) as \u00NN, Unicode format characters (Cf: the
 * bidi overrides and isolates U+202A..U+202E and U+2066..U+2069, zero-width characters, the
 * BOM, tags...) and the line and paragraph separators as \uXXXX (or \UXXXXXXXX), and bytes that
 * are not UTF-8 (a stray 0xFF, an overlong form, a surrogate) as \xNN. Other text, UTF-8
 * included, passes unchanged; the result is always valid UTF-8.
 */
std::string escape_for_display(std::string_view text);

/** True when `code_point` is a format character (general category Cf) or U+2028/U+2029. */
bool is_invisible_format_char(char32_t code_point);

/**
 * Appends one RFC 4180 cell to `out`: the text escaped as by escape_for_display except CR, LF
 * and TAB (a quoted cell holds them), a cell a spreadsheet would run as a formula (starting
 * with = + - @ TAB CR) prefixed with ', and quoted (with "" for ") when it holds a comma, a
 * quote or a line break. Numbers are not cells of this kind:
 * they are written as they are.
 */
void append_csv_cell(std::string& out, std::string_view text);

}  // namespace gpucalc
