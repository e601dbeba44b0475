/* pti expressions and symbol tables (part of the HMI; include <pti/hmi.h>).
 *
 * One expression language serves workload files (loop bounds, message sizes,
 * conditions) and RUDs (a loop's `iter`, a branch's `exprob`, an operation's
 * count).  An expression is compiled once against a symbol table, which maps
 * names to value slots, and evaluated many times against the table's current
 * values: evaluation neither allocates nor parses.
 *
 * Grammar (C precedence, lowest first):
 *   cond   := or ( '?' cond ':' cond )?
 *   or     := and ( '||' and )*
 *   and    := cmp ( '&&' cmp )*
 *   cmp    := sum ( ('<'|'<='|'>'|'>='|'=='|'!=') sum )*
 *   sum    := prod ( ('+'|'-') prod )*
 *   prod   := unary ( ('*'|'/'|'%') unary )*
 *   unary  := ('-'|'+'|'!') unary | pow
 *   pow    := atom ( '^' unary )?              (right-associative)
 *   atom   := number | name | name '(' args ')' | '(' cond ')'
 * Numbers: 12, 1.5, 2e-3.  Names: [A-Za-z_][A-Za-z0-9_]*.
 * Functions: min(a,b,...), max(a,b,...), floor, ceil, round, abs, log2, sqrt,
 *   pow(a,b), idiv(a,b) (floor(a/b)).
 * `%` is the floored modulo (the result has the sign of the divisor), so
 * `(rank - 1) % P` stays in 0..P-1.  Comparisons and logical operators give 1
 * or 0; `&&`, `||` and `?:` evaluate only what they need.
 */
#pragma once

#include <glib.h>
#include <pti/hmi-api.h>

/* Included on its own, this header declares its part first and then brings
 * in the rest of the HMI: <pti/hmi.h> needs PtiSymbols, so including it
 * first would leave PtiSymbols undeclared (tests/install compiles every
 * public header alone). */

G_BEGIN_DECLS

/**
 * PtiSymbols:
 *
 * A table of named value slots.  A slot that was never set holds NaN, which
 * is how an unbound parameter is detected.  Not thread-safe.
 */
typedef struct _PtiSymbols PtiSymbols;

/** pti_symbols_new: Returns: (transfer full): an empty table. */
PTI_API PtiSymbols *pti_symbols_new (void);
/** pti_symbols_free: frees @symbols; NULL is allowed. */
PTI_API void pti_symbols_free (PtiSymbols *symbols);

/**
 * pti_symbols_intern:
 * Returns: the slot of @name, created (unbound) if new.  Slots are dense,
 * numbered from 0 in order of creation, and never move.
 */
PTI_API guint pti_symbols_intern (PtiSymbols *symbols, const char *name);

/** pti_symbols_lookup: Returns: TRUE and the slot if @name exists. */
PTI_API gboolean pti_symbols_lookup (const PtiSymbols *symbols, const char *name, guint *slot);

/** pti_symbols_name: Returns: (transfer none): the name of @slot. */
PTI_API const char *pti_symbols_name (const PtiSymbols *symbols, guint slot);

/** pti_symbols_count: Returns: the number of slots. */
PTI_API guint pti_symbols_count (const PtiSymbols *symbols);

/** pti_symbols_set: binds @slot to @value (NaN unbinds it). */
PTI_API void pti_symbols_set (PtiSymbols *symbols, guint slot, double value);

/** pti_symbols_get: Returns: the value of @slot (NaN if unbound). */
PTI_API double pti_symbols_get (const PtiSymbols *symbols, guint slot);

/**
 * pti_symbols_gather:
 * @slots: (array length=n): slots to read
 * @out: (array length=n): their values
 *
 * Reads @n slots at once (a workload source saving one rank's variables
 * before it turns to another rank).
 */
PTI_API void pti_symbols_gather (const PtiSymbols *symbols, guint n, const guint *slots,
                                 double *out);

/** pti_symbols_scatter: binds @n slots to @values at once (the reverse). */
PTI_API void pti_symbols_scatter (PtiSymbols *symbols, guint n, const guint *slots,
                                  const double *values);

/**
 * pti_symbols_values:
 * Returns: (transfer none): the value array, indexed by slot; valid until the
 * next pti_symbols_intern.
 */
PTI_API const double *pti_symbols_values (const PtiSymbols *symbols);

/** PtiExpr: a compiled expression (immutable, shareable). */
typedef struct _PtiExpr PtiExpr;

/**
 * pti_expr_compile:
 * @text: the expression
 * @symbols: names in @text are interned here
 *
 * Returns: (transfer full): the compiled expression, or NULL with a
 * PTI_ERROR_INVALID error that quotes @text and the column of the problem
 * (callers prefix the file and line).
 */
PTI_API PtiExpr *pti_expr_compile (const char *text, PtiSymbols *symbols, GError **error);

/**
 * pti_expr_compile_folded:
 * @is_constant: (nullable): TRUE for the slots whose value is fixed for good
 * @data: given to @is_constant
 *
 * pti_expr_compile(), with every name whose slot @is_constant accepts (and
 * that is bound now) replaced by its current value, and what then depends
 * only on numbers folded: `8 * jt * mk` with jt and mk fixed parameters is
 * one number, evaluated at no cost.  Errors quote @text as written.
 * Returns: (transfer full): the compiled expression, or NULL with @error.
 */
PTI_API PtiExpr *pti_expr_compile_folded (const char *text, PtiSymbols *symbols,
                                          gboolean (*is_constant) (guint slot, gpointer data),
                                          gpointer data, GError **error);

/**
 * pti_expr_eval:
 *
 * Hot path.  Returns the value with the current slot values.  If any slot it
 * reads is unbound the result is NaN; pti_expr_check() says which.
 */
PTI_API double pti_expr_eval (const PtiExpr *expr, const PtiSymbols *symbols);

/**
 * pti_expr_check:
 *
 * Evaluates @expr and fails with a PTI_ERROR_INVALID error naming the first
 * unbound parameter it reads, or saying the value is not finite (a division
 * by zero, sqrt of a negative number).  Allocates only on error.
 */
PTI_API gboolean pti_expr_check (const PtiExpr *expr, const PtiSymbols *symbols,
                                 double *value, GError **error);

/** pti_expr_is_name: Returns: TRUE (and its slot) if @expr is a bare name. */
PTI_API gboolean pti_expr_is_name (const PtiExpr *expr, guint *slot);

/** pti_expr_is_constant: Returns: TRUE (and the value) if @expr reads no slot. */
PTI_API gboolean pti_expr_is_constant (const PtiExpr *expr, double *value);

/**
 * pti_expr_slots:
 * @n: (out): how many
 *
 * Returns: (transfer none): the slots @expr reads, in order of first
 * appearance; its value depends on nothing else.
 */
PTI_API const guint *pti_expr_slots (const PtiExpr *expr, guint *n);

/** pti_expr_text: Returns: (transfer none): the source text. */
PTI_API const char *pti_expr_text (const PtiExpr *expr);

/** pti_expr_free: frees @expr; NULL is allowed. */
PTI_API void pti_expr_free (PtiExpr *expr);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiSymbols, pti_symbols_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiExpr, pti_expr_free)

G_END_DECLS

#ifndef PTI_HMI_INSIDE
#include <pti/hmi.h>
#endif
