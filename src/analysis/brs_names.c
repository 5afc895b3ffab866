/* SPDX-License-Identifier: MIT */
/* Naming anonymous BrightScript functions from their definition line (brs_names.h): a small
 * tokenizer for the one line, and a scan of component .xml files for their script elements. */
#include "analysis/brs_names.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

typedef enum token_kind {
    TOKEN_NAME,   /* an identifier or keyword */
    TOKEN_STRING, /* "...", with "" for a quote inside */
    TOKEN_PUNCT,  /* one character: = : . ( { , and the rest */
} token_kind;

typedef struct token {
    token_kind kind;
    const char *text; /* a string's text without its quotes */
    size_t len;
} token;

#define MAX_TOKENS 256

static bool name_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Splits the line into tokens up to a comment; false for a line too long to be worth it or
 * with an unterminated string. */
static bool tokenize(const char *s, size_t len, token *tokens, size_t *count)
{
    size_t n = 0, i = 0;
    while (i < len) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            i++;
            continue;
        }
        if (c == '\'')
            break; /* the rest is a comment */
        if (n == MAX_TOKENS)
            return false;
        token *t = &tokens[n++];
        if (name_start(c)) {
            size_t start = i;
            while (i < len && name_char(s[i]))
                i++;
            /* A type designator may end a variable's name ($ % ! # &). */
            if (i < len && strchr("$%!#&", s[i]))
                i++;
            *t = (token){TOKEN_NAME, s + start, i - start};
        } else if (c == '"') {
            size_t start = ++i;
            for (;;) {
                if (i >= len)
                    return false;
                if (s[i] == '"' && i + 1 < len && s[i + 1] == '"') {
                    i += 2;
                    continue;
                }
                if (s[i] == '"')
                    break;
                i++;
            }
            *t = (token){TOKEN_STRING, s + start, i - start};
            i++;
        } else {
            *t = (token){TOKEN_PUNCT, s + i, 1};
            i++;
        }
    }
    *count = n;
    return true;
}

static bool is_word(const token *t, const char *word)
{
    return t->kind == TOKEN_NAME && t->len == strlen(word) &&
           strncasecmp(t->text, word, t->len) == 0;
}

static bool is_punct(const token *t, char c)
{
    return t->kind == TOKEN_PUNCT && t->text[0] == c;
}

/* A name as BrightScript writes one: no type designator (a function is not a string, integer,
 * float, double or long). */
static bool plain_name(const token *t)
{
    return t->kind == TOKEN_NAME && name_char(t->text[t->len - 1]);
}

static bool copy_name(const token *t, char *name)
{
    if (t->len == 0 || t->len >= PK_BRS_NAME_MAX)
        return false;
    for (size_t i = 0; i < t->len; i++)
        if ((unsigned char)t->text[i] < 0x20 || t->text[i] == 0x7f)
            return false;
    memcpy(name, t->text, t->len);
    name[t->len] = '\0';
    return true;
}

bool pk_brs_anonymous_name(const char *line, size_t len, char *name)
{
    token tokens[MAX_TOKENS];
    size_t n;
    if (!tokenize(line, len, tokens, &n))
        return false;
    /* The one `function (` or `sub (` of the line. */
    size_t at = 0, found = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if ((is_word(&tokens[i], "function") || is_word(&tokens[i], "sub")) &&
            is_punct(&tokens[i + 1], '(')) {
            at = i;
            found++;
        }
    }
    if (found != 1 || at < 2)
        return false;
    const token *before = &tokens[at - 1];
    if (is_punct(before, '=')) {
        /* target = function(: target is name(.name)* at the start of a statement. */
        size_t last = at - 2, first = last;
        if (!plain_name(&tokens[last]))
            return false;
        while (first >= 2 && is_punct(&tokens[first - 1], '.') && plain_name(&tokens[first - 2]))
            first -= 2;
        if (first > 0 && !is_punct(&tokens[first - 1], ':'))
            return false;
        return copy_name(&tokens[last], name);
    }
    if (is_punct(before, ':')) {
        /* key: function( in an associative array: after the start, '{' or ','. */
        const token *key = &tokens[at - 2];
        if (key->kind != TOKEN_STRING && !plain_name(key))
            return false;
        if (at >= 3 && !is_punct(&tokens[at - 3], '{') && !is_punct(&tokens[at - 3], ','))
            return false;
        return copy_name(key, name);
    }
    return false;
}

/* ---- component .xml files ----------------------------------------------------------------- */

/* Blanks [from, to) except line ends. */
static void blank(char *text, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (text[i] != '\n' && text[i] != '\r')
            text[i] = ' ';
}

static bool starts_with_nocase(const char *text, size_t len, size_t at, const char *word)
{
    size_t n = strlen(word);
    return at + n <= len && strncasecmp(text + at, word, n) == 0;
}

static bool starts_with(const char *text, size_t len, size_t at, const char *word)
{
    size_t n = strlen(word);
    return at + n <= len && memcmp(text + at, word, n) == 0;
}

/* Where the text from `at` on first holds `word`, or len. */
static size_t find(const char *text, size_t len, size_t at, const char *word, bool nocase)
{
    for (size_t i = at; i < len; i++)
        if (nocase ? starts_with_nocase(text, len, i, word) : starts_with(text, len, i, word))
            return i;
    return len;
}

/* The end of the tag starting at `at` ('<'): just past its '>', minding quoted attribute
 * values. */
static size_t tag_end(const char *text, size_t len, size_t at, bool *self_closing)
{
    char quote = 0;
    for (size_t i = at + 1; i < len; i++) {
        char c = text[i];
        if (quote) {
            if (c == quote)
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '>') {
            *self_closing = text[i - 1] == '/';
            return i + 1;
        }
    }
    *self_closing = false;
    return len;
}

void pk_brs_keep_xml_scripts(char *text, size_t len)
{
    size_t i = 0, kept_to = 0; /* bytes before kept_to are settled */
    while (i < len) {
        if (text[i] != '<') {
            i++;
            continue;
        }
        if (starts_with(text, len, i, "<!--")) {
            size_t end = find(text, len, i + 4, "-->", false);
            i = end < len ? end + 3 : len;
            continue;
        }
        if (starts_with(text, len, i, "<![CDATA[")) {
            size_t end = find(text, len, i + 9, "]]>", false);
            i = end < len ? end + 3 : len;
            continue;
        }
        bool is_script = starts_with_nocase(text, len, i, "<script") && i + 7 < len &&
                         !name_char(text[i + 7]) && text[i + 7] != '-';
        bool self_closing;
        size_t end = tag_end(text, len, i, &self_closing);
        if (!is_script || self_closing) {
            i = end;
            continue;
        }
        /* The element's content, up to </script>: text and CDATA sections are script. */
        blank(text, kept_to, end);
        size_t j = end;
        while (j < len && !starts_with_nocase(text, len, j, "</script")) {
            if (starts_with(text, len, j, "<![CDATA[")) {
                blank(text, j, j + 9);
                size_t close = find(text, len, j + 9, "]]>", false);
                if (close < len)
                    blank(text, close, close + 3);
                j = close < len ? close + 3 : len;
            } else if (starts_with(text, len, j, "<!--")) {
                size_t close = find(text, len, j + 4, "-->", false);
                size_t stop = close < len ? close + 3 : len;
                blank(text, j, stop);
                j = stop;
            } else {
                j++;
            }
        }
        kept_to = j;
        i = j;
    }
    blank(text, kept_to, len);
}
