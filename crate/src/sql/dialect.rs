//! Flink SQL as a `sqlparser` dialect: backquoted identifiers, `FOR SYSTEM_TIME AS OF`, named
//! arguments with `=>`, `/*+ … */` hints after `SELECT`, and `TABLE t` as a function argument
//! (window TVFs: `TUMBLE(TABLE t, DESCRIPTOR(rt), INTERVAL '10' MINUTES)`).
//!
//! Statement shapes that sqlparser has no node for (`CREATE TABLE` with `WATERMARK FOR` and
//! Flink's `WITH` options, `SET 'key' = 'value'`) are read by [`super::script`] with the
//! parser's own primitives (`parse_identifier`, `parse_data_type`, `parse_expr`, …).

use sqlparser::ast::{Expr, Function, FunctionArgumentList, FunctionArguments, Ident, ObjectName};
use sqlparser::dialect::Dialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// The name of the marker function that stands for a `TABLE t` argument.
pub const TABLE_ARG: &str = "$TABLE";

/// Flink SQL (Calcite's parser as configured by Flink's `FlinkSqlParserImpl`).
#[derive(Debug, Default, Clone, Copy)]
pub struct FlinkDialect;

impl Dialect for FlinkDialect {
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        ch == '`'
    }
    fn identifier_quote_style(&self, _identifier: &str) -> Option<char> {
        Some('`')
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        ch.is_alphabetic() || ch == '_'
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        ch.is_alphanumeric() || ch == '_' || ch == '$'
    }
    fn supports_table_versioning(&self) -> bool {
        true
    }
    fn supports_named_fn_args_with_rarrow_operator(&self) -> bool {
        true
    }
    fn supports_comment_optimizer_hint(&self) -> bool {
        true
    }
    /// `GROUP BY window_start, window_end, GROUPING SETS (…) / ROLLUP (…) / CUBE (…)`.
    fn supports_group_by_expr(&self) -> bool {
        true
    }
    fn supports_boolean_literals(&self) -> bool {
        true
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        false
    }
    /// `TABLE t` inside a function's arguments (a window TVF's table parameter) becomes the
    /// marker call `$TABLE(t)`; `TABLE t PARTITION BY k` is not in Flink's window TVFs but
    /// `SESSION(TABLE t PARTITION BY k, …)` is, so `PARTITION BY` columns follow as arguments.
    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let t = parser.peek_token();
        match &t.token {
            Token::Word(w) if w.keyword == Keyword::TABLE => {
                // Only as a function argument: `TABLE` followed by an identifier (a `TABLE(`
                // table function in FROM is sqlparser's own).
                let next = parser.peek_nth_token(1);
                if !matches!(next.token, Token::Word(_)) {
                    return None;
                }
                parser.next_token();
                Some(table_arg(parser))
            }
            _ => None,
        }
    }
}

fn table_arg(parser: &mut Parser) -> Result<Expr, ParserError> {
    let name = parser.parse_identifier()?;
    let mut args = vec![sqlparser::ast::FunctionArg::Unnamed(
        sqlparser::ast::FunctionArgExpr::Expr(Expr::Identifier(name)),
    )];
    if parser.parse_keywords(&[Keyword::PARTITION, Keyword::BY]) {
        // `PARTITION BY k` or `PARTITION BY (k1, k2)`: a bare list would swallow the TVF's
        // next arguments.
        let keys = if parser.consume_token(&Token::LParen) {
            let keys = parser.parse_comma_separated(Parser::parse_identifier)?;
            parser.expect_token(&Token::RParen)?;
            keys
        } else {
            vec![parser.parse_identifier()?]
        };
        for k in keys {
            args.push(sqlparser::ast::FunctionArg::Unnamed(
                sqlparser::ast::FunctionArgExpr::Expr(Expr::Identifier(k)),
            ));
        }
    }
    Ok(Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new(TABLE_ARG)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args,
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    }))
}
