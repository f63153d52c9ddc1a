//! `# RUN:` lines of lit tests, parsed without a shell.
//!
//! Accepted form (LLVM lit conventions, just what ptoc's tests need):
//! `[not] ptoc ARGS… [REDIRECTIONS] [| FileCheck [--check-prefix=P] %s]`
//! - `not`: ptoc must exit with a status in 1..=100 (an internal error, 101, is not a pass);
//! - redirections, applied left to right like a shell: `2>&1` (stderr goes where stdout goes),
//!   `>/dev/null`, `2>/dev/null`, `< FILE` (stdin);
//! - substitutions: `%s` = the test file, `%%` = `%`;
//! - a trailing `\` continues the command on the next `RUN:` line.
//!
//! A line `# ROUNDTRIP` asks for one more check: printing the parsed file gives back the file
//! without its comment lines (the `# pypto.program:` header excepted); see [`roundtrip_text`].

/// Where one of ptoc's output streams ends up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Into FileCheck's input.
    Pipe,
    /// Discarded.
    Null,
    /// Not redirected: shown only when the test fails.
    Shown,
}

/// One parsed RUN command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLine {
    /// 1-based line number of the (first) `RUN:` line.
    pub line: usize,
    /// The command as written.
    pub text: String,
    pub expect_failure: bool,
    /// ptoc's arguments, substituted, without the program name.
    pub args: Vec<String>,
    /// File to feed as stdin (`< FILE`).
    pub stdin: Option<String>,
    pub stdout: Target,
    pub stderr: Target,
    /// FileCheck's check prefixes (comma-separated), when piped into FileCheck.
    pub check_prefix: Option<String>,
}

/// The commands of a test file: `(line, command)` for every `RUN:` directive in a `#` comment,
/// continuation lines joined.
pub fn extract(file_text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut continuing = false;
    for (i, line) in file_text.lines().enumerate() {
        let Some(cmd) = run_directive(line) else {
            continuing = false;
            continue;
        };
        let (cmd, more) = match cmd.strip_suffix('\\') {
            Some(c) => (c.trim(), true),
            None => (cmd, false),
        };
        match out.last_mut() {
            Some((_, prev)) if continuing => {
                prev.push(' ');
                prev.push_str(cmd);
            }
            _ => out.push((i + 1, cmd.to_string())),
        }
        continuing = more;
    }
    out
}

/// With a `# ROUNDTRIP` line: the text print(parse(file)) must equal — the file without its
/// comment lines, except the `# pypto.program:` header.
pub fn roundtrip_text(file_text: &str) -> Option<String> {
    let is_comment = |l: &str| l.trim_start().starts_with('#');
    if !file_text.lines().any(|l| l.trim() == "# ROUNDTRIP") {
        return None;
    }
    let kept: Vec<&str> = file_text.lines().filter(|l| !is_comment(l) || l.starts_with("# pypto.program:")).collect();
    Some(kept.join("\n"))
}

/// The command of a `# RUN: …` line, if it is one.
fn run_directive(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?;
    rest.trim_start().strip_prefix("RUN:").map(str::trim)
}

/// Parses one command; `file` replaces `%s`.
pub fn parse(line: usize, text: &str, file: &str) -> Result<RunLine, String> {
    let tokens = tokenize(text)?;
    let mut stages = tokens.split(|t| t.is_pipe());
    let first = stages.next().unwrap_or(&[]);
    let second = stages.next();
    if stages.next().is_some() {
        return Err("at most one `|` is supported (ptoc … | FileCheck …)".into());
    }
    let words = first.iter().map(|t| substitute(t.text(), file)).collect::<Result<Vec<_>, _>>()?;
    let mut words = words.into_iter().peekable();
    let expect_failure = words.next_if(|w| w == "not").is_some();
    if words.next().as_deref() != Some("ptoc") {
        return Err("the command must be `ptoc …` or `not ptoc …`".into());
    }
    let mut run = RunLine {
        line,
        text: text.to_string(),
        expect_failure,
        args: Vec::new(),
        stdin: None,
        stdout: if second.is_some() { Target::Pipe } else { Target::Shown },
        stderr: Target::Shown,
        check_prefix: None,
    };
    while let Some(w) = words.next() {
        match w.as_str() {
            "2>&1" => run.stderr = run.stdout,
            ">/dev/null" | "1>/dev/null" => run.stdout = Target::Null,
            "2>/dev/null" => run.stderr = Target::Null,
            ">" | "1>" | "2>" => {
                return Err(format!("write `{w}/dev/null` without a space; only /dev/null is supported"))
            }
            "<" => run.stdin = Some(words.next().ok_or("`<` needs a file")?),
            _ if w.starts_with('<') => run.stdin = Some(w[1..].to_string()),
            _ if w.contains('>') => return Err(format!("unsupported redirection `{w}`")),
            _ => run.args.push(w),
        }
    }
    if let Some(stage) = second {
        let words = stage.iter().map(|t| substitute(t.text(), file)).collect::<Result<Vec<_>, _>>()?;
        run.check_prefix = Some(filecheck_prefix(&words, file)?);
    }
    Ok(run)
}

/// Reads `FileCheck [--check-prefix=P|--check-prefixes=P,Q] FILE`; FILE must be the test file.
fn filecheck_prefix(words: &[String], file: &str) -> Result<String, String> {
    let mut words = words.iter();
    if words.next().map(String::as_str) != Some("FileCheck") {
        return Err("only `| FileCheck …` is supported after the pipe".into());
    }
    let mut prefix = None;
    let mut check_file = None;
    while let Some(w) = words.next() {
        let opt = w.strip_prefix("--").or_else(|| w.strip_prefix('-'));
        match opt.map(|o| o.split_once('=').unwrap_or((o, ""))) {
            Some(("check-prefix" | "check-prefixes", value)) => {
                let value =
                    if value.is_empty() { words.next().cloned().unwrap_or_default() } else { value.to_string() };
                if value.is_empty() {
                    return Err(format!("`{w}` needs a value"));
                }
                prefix = Some(value);
            }
            Some(_) => return Err(format!("unsupported FileCheck option `{w}`")),
            None if check_file.is_none() => check_file = Some(w.clone()),
            None => return Err(format!("unexpected FileCheck argument `{w}`")),
        }
    }
    match check_file {
        Some(f) if f == file => Ok(prefix.unwrap_or_else(|| "CHECK".to_string())),
        Some(f) => Err(format!("FileCheck must read its checks from %s, not `{f}`")),
        None => Err("FileCheck needs the check file: `FileCheck %s`".into()),
    }
}

/// A token: a word (quotes removed) or an unquoted `|`.
#[derive(Debug)]
enum Token {
    Word(String),
    Pipe,
}

impl Token {
    fn is_pipe(&self) -> bool {
        matches!(self, Token::Pipe)
    }
    fn text(&self) -> &str {
        match self {
            Token::Word(w) => w,
            Token::Pipe => "|",
        }
    }
}

/// Splits on unquoted whitespace; `'…'` and `"…"` quote (no escapes); unquoted `|` stands alone.
fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => tokens.extend(word.take().map(Token::Word)),
            '|' => {
                tokens.extend(word.take().map(Token::Word));
                tokens.push(Token::Pipe);
            }
            '\'' | '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => w.push(other),
                        None => return Err(format!("unterminated {c} quote")),
                    }
                }
            }
            _ => word.get_or_insert_with(String::new).push(c),
        }
    }
    tokens.extend(word.map(Token::Word));
    Ok(tokens)
}

/// Replaces `%s` by `file` and `%%` by `%`; any other `%x` is an error.
fn substitute(word: &str, file: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out.push_str(file),
            Some('%') => out.push('%'),
            other => return Err(format!("unknown substitution `%{}`", other.map(String::from).unwrap_or_default())),
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(unused_imports)] // see mod.rs
mod tests {
    use super::*;

    const F: &str = "/t/a.pto";

    fn p(text: &str) -> RunLine {
        parse(1, text, F).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn extracts_run_lines_and_joins_continuations() {
        let text = "# RUN: ptoc %s | FileCheck %s\nx = 1\n  #RUN: not ptoc \\\n# RUN:   --emit cpp %s\n# CHECK: RUN: no\n# RUN: ptoc %s\n";
        assert_eq!(
            extract(text),
            vec![
                (1, "ptoc %s | FileCheck %s".to_string()),
                (3, "not ptoc --emit cpp %s".to_string()),
                (6, "ptoc %s".to_string())
            ]
        );
        assert!(extract("x = 1  # RUN: ptoc\n").is_empty(), "RUN must start the comment line");
    }

    #[test]
    fn roundtrip_directive() {
        assert_eq!(roundtrip_text("# RUN: ptoc %s\n# pypto.program: P\nimport x\n"), None);
        let text = "# RUN: ptoc %s\n# ROUNDTRIP\n# pypto.program: P\nimport x\n\n  # CHECK: y\nclass P:\n";
        assert_eq!(roundtrip_text(text).as_deref(), Some("# pypto.program: P\nimport x\n\nclass P:"));
    }

    #[test]
    fn plain_pipe_into_filecheck() {
        let r = p("ptoc --pipeline none %s | FileCheck %s");
        assert!(!r.expect_failure);
        assert_eq!(r.args, ["--pipeline", "none", F]);
        assert_eq!((r.stdout, r.stderr), (Target::Pipe, Target::Shown));
        assert_eq!(r.check_prefix.as_deref(), Some("CHECK"));
    }

    #[test]
    fn not_and_stderr_into_the_pipe() {
        let r = p("not ptoc --error-format=short %s 2>&1 | FileCheck %s --check-prefix=ERR");
        assert!(r.expect_failure);
        assert_eq!(r.args, ["--error-format=short", F]);
        assert_eq!((r.stdout, r.stderr), (Target::Pipe, Target::Pipe));
        assert_eq!(r.check_prefix.as_deref(), Some("ERR"));
    }

    #[test]
    fn redirections_apply_left_to_right() {
        let r = p("ptoc --print-after-all %s 2>&1 >/dev/null | FileCheck -check-prefix DUMP %s");
        assert_eq!((r.stdout, r.stderr), (Target::Null, Target::Pipe));
        assert_eq!(r.check_prefix.as_deref(), Some("DUMP"));
        let r = p("ptoc %s >/dev/null 2>&1 | FileCheck %s");
        assert_eq!((r.stdout, r.stderr), (Target::Null, Target::Null));
        let r = p("ptoc - < %s");
        assert_eq!(r.stdin.as_deref(), Some(F));
        assert_eq!(r.args, ["-"]);
        assert_eq!((r.stdout, r.check_prefix), (Target::Shown, None));
    }

    #[test]
    fn quoting_and_substitutions() {
        let r = p("ptoc --passes 'a, b' \"x|y\" 100%% %s|FileCheck --check-prefixes=A,B %s");
        assert_eq!(r.args, ["--passes", "a, b", "x|y", "100%", F]);
        assert_eq!(r.check_prefix.as_deref(), Some("A,B"));
    }

    #[test]
    fn rejects_what_it_cannot_run() {
        for bad in [
            "opt %s",
            "ptoc %s | FileCheck",
            "ptoc %s | FileCheck other.pto",
            "ptoc %s | grep x",
            "ptoc %s | FileCheck %s | FileCheck %s",
            "ptoc %s > out.txt",
            "ptoc %s 2>err.txt",
            "ptoc %t",
            "ptoc 'unterminated",
            "ptoc %s | FileCheck --strict-whitespace %s",
            "ptoc %s | FileCheck --check-prefix %s",
        ] {
            assert!(parse(1, bad, F).is_err(), "{bad} should be rejected");
        }
    }
}
