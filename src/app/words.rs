//! The words of a command line: splitting a line as a shell would (quotes), and parsing the
//! words of a game action into a [`Request`] with clap, in the library's terms. Conformance
//! cases and the demo script are written in these words.

use clap::Parser;

use super::Request;

/// One game action as words (`order --side imperial --method oral "…"`).
#[derive(Parser, Debug)]
#[command(name = "staffwork", no_binary_name = true)]
struct RequestLine {
    #[command(subcommand)]
    request: Request,
}

/// Parse a command line (without the program name and without `--db`) into a request. The
/// error is clap's first line, e.g. "unexpected argument '--dbx' found".
pub fn parse_request(line: &str) -> Result<Request, String> {
    let words = split_words(line)?;
    RequestLine::try_parse_from(&words)
        .map(|l| l.request)
        .map_err(|e| e.to_string().lines().next().unwrap_or_default().to_string())
}

/// Split a command line into words, honouring double and single quotes.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut has = false;
    let mut chars = line.chars();
    while let Some(ch) = chars.next() {
        match (quote, ch) {
            (None, c) if c.is_whitespace() => {
                if has {
                    words.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            (None, '"' | '\'') => {
                quote = Some(ch);
                has = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (_, c) => {
                cur.push(c);
                has = true;
            }
        }
    }
    if quote.is_some() {
        return Err("unclosed quote".into());
    }
    if has {
        words.push(cur);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_keep_words_together() {
        assert_eq!(
            split_words(r#"order --side a "3rd Div: march to X." 'b c'"#).unwrap(),
            ["order", "--side", "a", "3rd Div: march to X.", "b c"]
        );
        assert!(split_words("order \"open").is_err());
    }

    #[test]
    fn a_line_becomes_a_typed_request() {
        match parse_request("turn --until-turn 3").unwrap() {
            Request::Turn(t) => assert_eq!(t.until_turn, Some(3)),
            other => panic!("expected turn, got {other:?}"),
        }
        let e = parse_request("turn --db x.db").unwrap_err();
        assert!(e.contains("--db"), "{e}");
    }
}
