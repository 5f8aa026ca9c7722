//! Column paths as messages and `text_guesses` spell them: a top-level name, then
//! `.member` for a struct's member and `[]` for a list's elements (`m.x`, `l[]`, `l[].x`).
//! A name holding `.`, `[`, `]` or a backtick, or an empty one, is written between backticks
//! (a backtick inside doubled), as Spark quotes such names: the key `http.status` is the path
//! `` `http.status` ``, never member `status` of `http` (`batchloader.paths` in Python).

use std::borrow::Cow;

/// One step of a path after its top-level name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    /// A struct's member, by name.
    Member(Cow<'a, str>),
    /// A list's elements (`[]`).
    Elements,
}

/// `name` as a step of a path: as it is, or between backticks if it needs them.
pub(crate) fn step(name: &str) -> Cow<'_, str> {
    if !name.is_empty() && !name.contains(['.', '[', ']', '`']) {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(format!("`{}`", name.replace('`', "``")))
    }
}

/// The path of member `name` of the struct at path `parent` (`None`: a top-level column's).
pub(crate) fn member(parent: Option<&str>, name: &str) -> String {
    match parent {
        None => step(name).into_owned(),
        Some(parent) => format!("{parent}.{}", step(name)),
    }
}

/// The top-level name of `path` and its steps after it; `None` if `path` is not spelled as
/// a path.
pub(crate) fn steps(path: &str) -> Option<(Cow<'_, str>, Vec<Step<'_>>)> {
    let (top, mut rest) = name_at(path)?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("[]") {
            steps.push(Step::Elements);
            rest = after;
        } else {
            let (name, after) = name_at(rest.strip_prefix('.')?)?;
            steps.push(Step::Member(name));
            rest = after;
        }
    }
    Some((top, steps))
}

/// The name `text` starts with (between backticks, or up to a `.`, `[`, `]` or backtick)
/// and what follows it.
fn name_at(text: &str) -> Option<(Cow<'_, str>, &str)> {
    match text.strip_prefix('`') {
        Some(quoted) => {
            let mut i = 0;
            loop {
                let close = i + quoted[i..].find('`')?;
                if quoted[close + 1..].starts_with('`') {
                    i = close + 2; // a doubled backtick: one inside the name
                    continue;
                }
                let name = &quoted[..close];
                let name = if name.contains("``") {
                    Cow::Owned(name.replace("``", "`"))
                } else {
                    Cow::Borrowed(name)
                };
                return Some((name, &quoted[close + 1..]));
            }
        }
        None => {
            let end = text.find(['.', '[', ']', '`']).unwrap_or(text.len());
            (end > 0).then(|| (Cow::Borrowed(&text[..end]), &text[end..]))
        }
    }
}

/// The path of `top` and `steps` (as `steps` splits one).
pub(crate) fn join(top: &str, steps: &[Step<'_>]) -> String {
    let mut path = step(top).into_owned();
    for s in steps {
        match s {
            Step::Member(name) => path = member(Some(&path), name),
            Step::Elements => path.push_str("[]"),
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_need_backticks_get_them_and_read_back() {
        for name in [
            "a",
            "http.status",
            "l[]",
            "x]",
            "tick`s",
            "``",
            "",
            "caf\u{e9}",
            " ",
        ] {
            let path = member(Some(&member(None, name)), name);
            let (top, after) = steps(&path).unwrap_or_else(|| panic!("{path:?}"));
            assert_eq!(top, name, "{path:?}");
            assert_eq!(after, [Step::Member(Cow::Borrowed(name))], "{path:?}");
            assert_eq!(join(&top, &after), path);
        }
        assert_eq!(member(None, "http.status"), "`http.status`");
        assert_eq!(member(Some("m"), "a`b"), "m.`a``b`");
        assert_eq!(member(None, ""), "``");
    }

    #[test]
    fn paths_split_into_steps() {
        let (top, after) = steps("l[][].`a.b`.c[]").unwrap();
        assert_eq!(top, "l");
        let member = |s: &'static str| Step::Member(Cow::Borrowed(s));
        assert_eq!(
            after,
            [
                Step::Elements,
                Step::Elements,
                member("a.b"),
                member("c"),
                Step::Elements
            ]
        );
        for bad in [
            "", ".a", "a.", "a..b", "`a", "a[", "a]", "a[]b", "`a`b", "a`b`",
        ] {
            assert_eq!(steps(bad), None, "{bad:?}");
        }
    }
}
