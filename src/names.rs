//! Names of pieces and commands as an umpire types them on a command line (`move --piece`,
//! `combat --attacker`, `override --wreck`, `order --to`, `show`): ids, names, short names,
//! aliases and commanders' names, compared case-insensitively, with "did you mean" suggestions
//! (issue 17, decision 0120).
//!
//! Owns: the lookup from a typed name to the one id the engine knows. Must not: judge rules,
//! print, touch the store, or guess: a near miss is suggested, never taken (a mistyped `move`
//! cannot be taken back). Names inside order texts are the order language's (`order::resolve`);
//! both compare names by [`crate::text::fold`] and the same ordinal/abbreviation key.

use crate::engine::{GameState, Refusal, oob};
use crate::order::resolve::unit_key;
use crate::scenario::Scenario;
use crate::text::edit_distance;

/// What kind of thing a name must name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// Something that stands on the map: a commander, an HQ (`hq:<formation>`) or a unit.
    Piece,
    /// A command: a formation or a brigade acting on its own orders (6.1).
    Command,
    /// A unit (brigade, battery, skirmishers): a combat participant.
    Unit,
    /// A commander (a person).
    Commander,
}

impl Want {
    fn noun(self) -> &'static str {
        match self {
            Want::Piece => "commander, HQ or unit",
            Want::Command => "command (formation or brigade)",
            Want::Unit => "unit",
            Want::Commander => "commander",
        }
    }
}

/// A name that names nothing, or more than one thing, of the wanted kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameError {
    pub text: String,
    pub want: Want,
    /// Several things answer to the name: `id (name)` of each.
    pub ambiguous: Vec<String>,
    /// Nothing answers; the nearest names, `id (name)`.
    pub suggestions: Vec<String>,
}

impl std::fmt::Display for NameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.ambiguous.is_empty() {
            write!(
                f,
                "`{}` is not a {} of this game",
                self.text,
                self.want.noun()
            )
        } else {
            write!(
                f,
                "`{}` could be any of {}; say which",
                self.text,
                self.ambiguous.join(", ")
            )
        }
    }
}

impl NameError {
    /// The refusal a front end shows (input judged bad, exit 1).
    pub fn refusal(&self) -> Refusal {
        let help = if !self.ambiguous.is_empty() {
            "use the id (the first word of each candidate)".to_string()
        } else if self.suggestions.is_empty() {
            "ids, names, short names and commanders' names are accepted; see `staffwork status`"
                .to_string()
        } else {
            format!("did you mean {}?", self.suggestions.join(" or "))
        };
        let code = if self.ambiguous.is_empty() {
            "unknown-name"
        } else {
            "ambiguous-name"
        };
        Refusal::new(code, "", self.to_string(), help)
    }
}

/// One name of one thing.
struct Entry {
    key: String,
    id: String,
    label: String,
}

fn push_names<'a>(
    out: &mut Vec<Entry>,
    names: impl IntoIterator<Item = &'a str>,
    id: &str,
    label: &str,
) {
    for n in names {
        let key = unit_key(n);
        if !key.is_empty() {
            out.push(Entry {
                key,
                id: id.to_string(),
                label: label.to_string(),
            });
        }
    }
}

/// A commander's names: id, full name, aliases and surname (the last word of the name).
fn commander_names(c: &crate::scenario::Commander) -> Vec<&str> {
    let mut names: Vec<&str> = vec![&c.id, &c.name];
    names.extend(c.aliases.iter().map(String::as_str));
    names.extend(c.name.rsplit(' ').next());
    names
}

fn entries(s: &Scenario, state: &GameState, want: Want) -> Vec<Entry> {
    let mut out = Vec::new();
    let label = |id: &str, name: &str| format!("{id} ({name})");
    for u in &s.units {
        let brigade = oob::is_brigade(u.kind);
        let wanted = match want {
            Want::Piece | Want::Unit => true,
            Want::Command => brigade,
            Want::Commander => false,
        };
        if !wanted {
            continue;
        }
        let mut names: Vec<&str> = vec![&u.id, &u.name];
        names.extend(u.short.as_deref());
        names.extend(u.aliases.iter().map(String::as_str));
        names.extend(crate::text::bracketed(&u.name));
        push_names(&mut out, names, &u.id, &label(&u.id, &u.name));
    }
    for f in &s.formations {
        let id = match want {
            Want::Command => f.id.clone(),
            Want::Piece => oob::hq_piece(&f.id),
            Want::Unit | Want::Commander => continue,
        };
        let mut names: Vec<&str> = vec![&f.id, &f.name];
        names.extend(f.short.as_deref());
        names.extend(f.aliases.iter().map(String::as_str));
        names.extend(crate::text::bracketed(&f.name));
        let hq_names: Vec<String> = names.iter().map(|n| format!("hq {n}")).collect();
        let l = label(&id, &f.name);
        push_names(&mut out, hq_names.iter().map(String::as_str), &id, &l);
        if want == Want::Command {
            push_names(&mut out, names, &id, &l);
        }
    }
    for c in &s.commanders {
        // As a command: his own brigade (always his, while a temporary division he may lead
        // comes and goes, V2.3), else what he commands as the game stands (a successor, 25).
        let id = match want {
            Want::Piece | Want::Commander => c.id.clone(),
            Want::Command => match c
                .brigade
                .clone()
                .or_else(|| oob::formation_of(state, &c.id).map(str::to_string))
            {
                Some(cmd) => cmd,
                None => continue,
            },
            Want::Unit => match &c.brigade {
                Some(b) => b.clone(),
                None => continue,
            },
        };
        push_names(&mut out, commander_names(c), &id, &label(&id, &c.name));
    }
    out
}

/// Does `key` appear as whole consecutive words of `name`?
fn words_within(key: &str, name: &str) -> bool {
    let k: Vec<&str> = key.split(' ').collect();
    let n: Vec<&str> = name.split(' ').collect();
    !k.is_empty() && n.windows(k.len()).any(|w| w == k.as_slice())
}

/// Resolve a typed name to the id of the wanted kind: an exact id first, then a name, short
/// name, alias or commander's name read the same (case, diacritics, ordinals, "Bde"), then a
/// name whose words contain it ("Fane" → "6th Brigade (Fane)") when only one thing does.
/// Anything else is an error with the nearest names.
pub fn resolve(
    s: &Scenario,
    state: &GameState,
    text: &str,
    want: Want,
) -> Result<String, NameError> {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix("hq:")
        && want == Want::Piece
    {
        return resolve(s, state, rest, Want::Command)
            .map(|f| oob::hq_piece(&f))
            .map_err(|e| NameError {
                text: text.to_string(),
                want,
                ..e
            });
    }
    let all = entries(s, state, want);
    if all.iter().any(|e| e.id == text)
        || (want == Want::Command && state.commands.contains_key(text))
    {
        return Ok(text.to_string());
    }
    let key = unit_key(text);
    let pick = |hits: Vec<&Entry>| -> Option<Result<String, NameError>> {
        let mut ids: Vec<&Entry> = Vec::new();
        for h in hits {
            if !ids.iter().any(|e| e.id == h.id) {
                ids.push(h);
            }
        }
        match ids.len() {
            0 => None,
            1 => Some(Ok(ids[0].id.clone())),
            _ => Some(Err(NameError {
                text: text.to_string(),
                want,
                ambiguous: ids.iter().map(|e| e.label.clone()).collect(),
                suggestions: Vec::new(),
            })),
        }
    };
    if !key.is_empty() {
        if let Some(r) = pick(all.iter().filter(|e| e.key == key).collect()) {
            return r;
        }
        if let Some(r) = pick(all.iter().filter(|e| words_within(&key, &e.key)).collect()) {
            return r;
        }
    }
    let len = key.chars().count();
    let limit = len.div_ceil(2).max(2);
    // The difference of lengths is a lower bound of the edit distance: a name that cannot come
    // within the limit is not measured, so a hostile megabyte-long name costs one pass, not a
    // Levenshtein table per entry (the suggestions are the same).
    let mut scored: Vec<(usize, &Entry)> = all
        .iter()
        .filter(|e| len.abs_diff(e.key.chars().count()) <= limit)
        .map(|e| (edit_distance(&key, &e.key), e))
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id)));
    let mut suggestions: Vec<String> = Vec::new();
    for (d, e) in scored {
        if d > limit || suggestions.len() == 3 {
            break;
        }
        if !suggestions.contains(&e.label) {
            suggestions.push(e.label.clone());
        }
    }
    Err(NameError {
        text: text.to_string(),
        want,
        ambiguous: Vec::new(),
        suggestions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, NewGame};

    fn vimeiro() -> Game {
        let (_, toml, scenario) =
            crate::scenario::source(std::path::Path::new("vimeiro-1808")).expect("bundled");
        let new = NewGame::on(toml, scenario, 1).expect("presets read");
        Game::in_memory(new).expect("game")
    }

    fn r(g: &Game, text: &str, want: Want) -> Result<String, NameError> {
        resolve(&g.scenario, &g.state, text, want)
    }

    #[test]
    fn ids_names_short_names_and_commanders_resolve_case_insensitively() {
        let g = vimeiro();
        assert_eq!(r(&g, "6-fane", Want::Command).unwrap(), "6-fane");
        assert_eq!(r(&g, "6-Fane", Want::Command).unwrap(), "6-fane");
        assert_eq!(r(&g, "fane's brigade", Want::Command).unwrap(), "6-fane");
        assert_eq!(r(&g, "6th bde", Want::Unit).unwrap(), "6-fane");
        // The brigadier the counter is named after commands it.
        assert_eq!(r(&g, "Fane", Want::Command).unwrap(), "6-fane");
        assert_eq!(r(&g, "CRAWFURD", Want::Command).unwrap(), "5-crawfurd");
        assert_eq!(r(&g, "Wellesley", Want::Piece).unwrap(), "wellesley");
        assert_eq!(r(&g, "Sir Arthur", Want::Commander).unwrap(), "wellesley");
    }

    #[test]
    fn a_formation_names_its_hq_as_a_piece() {
        let g = vimeiro();
        let hq = r(&g, "hq:british-army", Want::Piece).unwrap();
        assert_eq!(hq, "hq:british-army");
        let army = &g.scenario.formation("british-army").unwrap().name;
        assert_eq!(r(&g, &format!("hq:{army}"), Want::Piece).unwrap(), hq);
    }

    #[test]
    fn a_typo_is_suggested_never_taken() {
        let g = vimeiro();
        let e = r(&g, "Crawfrd", Want::Command).unwrap_err();
        assert!(e.ambiguous.is_empty());
        assert!(
            e.suggestions.iter().any(|s| s.starts_with("5-crawfurd")),
            "{e:?}"
        );
        let refusal = e.refusal();
        assert_eq!(refusal.code, "unknown-name");
        assert!(refusal.help.contains("did you mean"), "{}", refusal.help);
    }

    #[test]
    fn a_name_two_things_answer_to_is_refused_with_both() {
        let g = vimeiro();
        // Both armies' short name is "Army".
        let e = r(&g, "army", Want::Command).unwrap_err();
        assert!(e.ambiguous.len() >= 2, "{e:?}");
        assert!(e.ambiguous.iter().any(|a| a.starts_with("british-army")));
        assert!(e.ambiguous.iter().any(|a| a.starts_with("french-army")));
        assert_eq!(e.refusal().code, "ambiguous-name");
        // An exact name beats names that only contain it: "Fane" is his brigade, not "Fane's
        // battery".
        assert_eq!(r(&g, "Fane", Want::Unit).unwrap(), "6-fane");
    }
}
