//! The reader's lexicon, as data (`grammar/lexicon.toml`; issue 11 §2, docs/order-language.md
//! §1.9): verb lemmas with their inflections and actions, negators, idioms and courtesies,
//! troop words, terrain nouns, the period's commanders (`[persons]`) and the months (`[dates]`).
//!
//! Owns: loading the lexicon once, generating inflections, and the rewrite pass that lays the
//! lexicon over the pest tokens of a sentence (longest match first, on word boundaries), so a
//! word the lexicon knows is never taken for a name. Must not: know any word itself (the data
//! file does), resolve names against a scenario, or decide what tokens mean together (that is
//! [`super::build`]).

use std::borrow::Cow;
use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::LazyLock;

use serde::Deserialize;

use super::ast::{Action, Form, Span};
use super::lower::{Target, Tok};
use crate::text::Lower;

/// The lexicon file, compiled into the binary (the reader must not depend on the working
/// directory).
const SOURCE: &str = include_str!("../../grammar/lexicon.toml");

#[derive(Deserialize)]
#[serde(untagged)]
enum VerbEntry {
    Regular(String),
    Irregular {
        action: String,
        #[serde(default)]
        forms: Vec<String>,
        #[serde(default)]
        past: Vec<String>,
    },
}

#[derive(Deserialize, Default)]
struct WordList {
    words: Option<Vec<String>>,
    titles: Option<Vec<String>>,
    nouns: Option<Vec<String>>,
    nations: Option<Vec<String>>,
    names: Option<Vec<String>>,
    ordinals: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct File {
    verbs: BTreeMap<String, VerbEntry>,
    negators: BTreeMap<String, String>,
    idioms: BTreeMap<String, String>,
    troops: WordList,
    terrain: WordList,
    finite: WordList,
    #[serde(default)]
    relations: WordList,
    #[serde(default)]
    persons: WordList,
    #[serde(default)]
    dates: WordList,
    #[serde(default)]
    actions: WordList,
    /// Terrain noun → the scenario place kinds it names ("that village" → village, town).
    #[serde(default)]
    kinds: BTreeMap<String, Vec<String>>,
    /// How the order's words give a place its kind with no scenario (decision 0216).
    #[serde(default)]
    named: Named,
}

/// `[named]`: link words between a terrain head and a name, and the kinds a name with no
/// terrain noun may be, without and with the article.
#[derive(Deserialize, Default)]
struct Named {
    #[serde(default)]
    links: Vec<String>,
    #[serde(default)]
    bare: Vec<String>,
    #[serde(default)]
    article: Vec<String>,
    #[serde(default)]
    same: Vec<String>,
}

/// What a lexicon phrase is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A verb form that is an action.
    Verb(Action),
    /// A known word that is not an action and never a name ("drew", "inform").
    Word,
    /// A past form of a verb of this action ("held", "taken"): an action only in a passive
    /// order ("Hall is to be taken by the 2nd Division").
    Participle(Action),
    Negator,
    Courtesy,
    Immediate,
    Manner,
    Duration,
    Condition,
    Purpose,
}

pub(crate) struct Lexicon {
    /// First word → phrases starting with it (as word lists), longest first.
    phrases: FxHashMap<String, Vec<(Vec<String>, Kind)>>,
    troops: FxHashSet<String>,
    nations: FxHashSet<String>,
    terrain: FxHashSet<String>,
    finite: FxHashSet<String>,
    relations: FxHashSet<String>,
    adjectives: FxHashSet<String>,
    titles: FxHashSet<String>,
    ordinals: FxHashSet<String>,
    persons: FxHashSet<String>,
    months: FxHashSet<String>,
    /// Negators whose object is what is forbidden, a noun phrase or an -ing form ("avoid",
    /// "refrain from"), as lower-case words joined by one space.
    avoid: FxHashSet<String>,
    /// Nouns of an action ("retreat", "passage"): "the retreat of X" is X's (rule
    /// `name.action-noun`).
    action_nouns: FxHashSet<String>,
    /// Conditions that wait for the sender's own order or signal ("on my order", "when I send
    /// word"): lexicon value `awaits-order`, lower-case words joined by one space (decision 0207).
    awaits: FxHashSet<String>,
    /// A past form of a verb (lower-case words joined by one space) → its lemma: "having
    /// crossed" is read back "cross" (rule `clause.having`).
    lemmas: FxHashMap<String, String>,
    /// `[kinds]`: a terrain noun → the place kinds it names (rules `pronoun.kind`,
    /// `place.definite`).
    kinds: FxHashMap<String, Vec<String>>,
    /// `[named]`: "of", "at" — the words after a terrain head that open the name it belongs to.
    links: FxHashSet<String>,
    /// `[named]`: the kinds a name with no noun of `[kinds]` may be, without and with "the".
    bare: Vec<String>,
    bare_article: Vec<String>,
    /// `[named] same`: head kinds that are the name after the link ("the village of X" is X).
    same_kinds: Vec<String>,
}

static LEXICON: LazyLock<Lexicon> = LazyLock::new(|| {
    // The file is part of the source tree and tested (`lexicon_loads`); a broken file is a
    // build defect, not bad input.
    let f: File = toml::from_str(SOURCE).expect("grammar/lexicon.toml is valid");
    Lexicon::from_file(f)
});

/// The lexicon, loaded on first use.
pub(crate) fn get() -> &'static Lexicon {
    &LEXICON
}

fn action(name: &str) -> Option<Action> {
    Some(match name {
        "move" => Action::Move,
        "attack" => Action::Attack,
        "defend" => Action::Defend,
        "withdraw" => Action::Withdraw,
        "cross" => Action::Cross,
        "deploy" => Action::Deploy,
        "support" => Action::Support,
        "reserve" => Action::Reserve,
        "join" => Action::Join,
        "halt" => Action::Halt,
        "pursue" => Action::Pursue,
        "reconnoitre" => Action::Reconnoitre,
        _ => return None,
    })
}

/// Regular inflections of a lemma's first word: (-s form, [-ed form, -ing form]).
pub(crate) fn inflect(lemma: &str) -> (String, Vec<String>) {
    let (head, tail) = match lemma.split_once(' ') {
        Some((h, t)) => (h, format!(" {t}")),
        None => (lemma, String::new()),
    };
    let b = head.as_bytes();
    let last = b.last().copied().unwrap_or(b'x');
    let before = b.len().checked_sub(2).map(|i| b[i]).unwrap_or(b'a');
    let vowel = |c: u8| b"aeiou".contains(&c);
    let (s, ed, ing) = if last == b'e' {
        let stem = &head[..head.len() - 1];
        (format!("{head}s"), format!("{head}d"), format!("{stem}ing"))
    } else if last == b'y' && !vowel(before) {
        let stem = &head[..head.len() - 1];
        (
            format!("{stem}ies"),
            format!("{stem}ied"),
            format!("{head}ing"),
        )
    } else if head.ends_with("ss") || head.ends_with("sh") || head.ends_with("ch") || last == b'x' {
        (
            format!("{head}es"),
            format!("{head}ed"),
            format!("{head}ing"),
        )
    } else {
        (
            format!("{head}s"),
            format!("{head}ed"),
            format!("{head}ing"),
        )
    };
    (
        format!("{s}{tail}"),
        vec![format!("{ed}{tail}"), format!("{ing}{tail}")],
    )
}

/// The base form of a verb written in the third person ("advances" → "advance", "carries" →
/// "carry", "falls back" → "fall back"), for the read-back's "is to …"; any other verb as it is.
/// The inverse of [`inflect`]'s -s form, so it holds for the lexicon's regular verbs and the
/// grammar's alike.
pub(crate) fn base_form(verb: &str) -> Cow<'_, str> {
    let (head, tail) = verb.split_once(' ').unwrap_or((verb, ""));
    let stem = match head {
        "goes" => Some("go".to_string()),
        "does" => Some("do".to_string()),
        "has" => Some("have".to_string()),
        _ if head.ends_with("ies") && head.len() > 4 => {
            Some(format!("{}y", &head[..head.len() - 3]))
        }
        _ if ["sses", "ches", "shes", "xes"]
            .iter()
            .any(|e| head.ends_with(e)) =>
        {
            Some(head[..head.len() - 2].to_string())
        }
        _ if head.ends_with('s') && !["ss", "us", "is"].iter().any(|e| head.ends_with(e)) => {
            Some(head[..head.len() - 1].to_string())
        }
        _ => None,
    };
    match stem {
        Some(stem) if tail.is_empty() => Cow::Owned(stem),
        Some(stem) => Cow::Owned(format!("{stem} {tail}")),
        None => Cow::Borrowed(verb),
    }
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_lowercase).collect()
}

impl Lexicon {
    fn from_file(f: File) -> Lexicon {
        let mut all: Vec<(Vec<String>, Kind)> = Vec::new();
        let mut lemmas = FxHashMap::default();
        for (lemma, e) in &f.verbs {
            let (act, forms, past) = match e {
                VerbEntry::Regular(a) => {
                    let (s, past) = inflect(lemma);
                    (a.as_str(), vec![s], past)
                }
                VerbEntry::Irregular {
                    action,
                    forms,
                    past,
                } => {
                    // The -ing form is regular even for irregular verbs ("falling upon").
                    let mut past = past.clone();
                    past.extend(inflect(lemma).1.into_iter().skip(1));
                    (action.as_str(), forms.clone(), past)
                }
            };
            let kind = action(act).map_or(Kind::Word, Kind::Verb);
            all.push((words(lemma), kind.clone()));
            for f in forms {
                all.push((words(&f), kind.clone()));
            }
            let part = action(act).map_or(Kind::Word, Kind::Participle);
            for p in past {
                lemmas.insert(words(&p).join(" "), words(lemma).join(" "));
                all.push((words(&p), part.clone()));
            }
        }
        let mut avoid = FxHashSet::default();
        for (k, v) in &f.negators {
            all.push((words(k), Kind::Negator));
            if v == "avoid" {
                avoid.insert(words(k).join(" "));
            }
        }
        let mut awaits = FxHashSet::default();
        for (k, v) in &f.idioms {
            if v == "awaits-order" {
                awaits.insert(words(k).join(" "));
            }
            let kind = match v.as_str() {
                "courtesy" => Kind::Courtesy,
                "immediate" => Kind::Immediate,
                "manner" => Kind::Manner,
                "duration" => Kind::Duration,
                "condition" | "awaits-order" => Kind::Condition,
                "purpose" => Kind::Purpose,
                _ => Kind::Word,
            };
            all.push((words(k), kind));
        }
        // Built in order, then looked up by hash (the map is never iterated after this).
        let mut phrases: BTreeMap<String, Vec<(Vec<String>, Kind)>> = BTreeMap::new();
        for (w, k) in all {
            if let Some(first) = w.first() {
                phrases.entry(first.clone()).or_default().push((w, k));
            }
        }
        for v in phrases.values_mut() {
            // Longest first; the first entry of equal phrases wins (verbs before past forms).
            v.sort_by_key(|(w, _)| std::cmp::Reverse(w.len()));
            v.dedup_by(|a, b| a.0 == b.0);
        }
        Lexicon {
            phrases: phrases.into_iter().collect(),
            nations: f.troops.nations.unwrap_or_default().into_iter().collect(),
            titles: f.troops.titles.unwrap_or_default().into_iter().collect(),
            ordinals: f.troops.ordinals.unwrap_or_default().into_iter().collect(),
            troops: f.troops.words.unwrap_or_default().into_iter().collect(),
            terrain: f.terrain.nouns.unwrap_or_default().into_iter().collect(),
            finite: f.finite.words.unwrap_or_default().into_iter().collect(),
            relations: f.relations.nouns.unwrap_or_default().into_iter().collect(),
            adjectives: f.relations.words.unwrap_or_default().into_iter().collect(),
            persons: f
                .persons
                .names
                .unwrap_or_default()
                .iter()
                .map(|n| crate::text::fold(n))
                .collect(),
            months: f.dates.words.unwrap_or_default().into_iter().collect(),
            avoid,
            awaits,
            action_nouns: f.actions.nouns.unwrap_or_default().into_iter().collect(),
            lemmas,
            kinds: f.kinds.into_iter().collect(),
            links: f.named.links.into_iter().collect(),
            bare: f.named.bare,
            bare_article: f.named.article,
            same_kinds: f.named.same,
        }
    }

    /// A word that links a terrain head to the name it stands at: "of", "at" (`[named] links`).
    pub(crate) fn is_kind_link(&self, word: &str) -> bool {
        self.links.contains(word)
    }

    /// A head of these kinds is the name after its link, not a place beside it: "the village of
    /// Elchingen" is Elchingen (`[named] same`).
    pub(crate) fn is_same_kind(&self, kinds: &[String]) -> bool {
        kinds.iter().any(|k| self.same_kinds.contains(k))
    }

    /// The kinds a proper name with no noun of `[kinds]` in it may be: `[named] bare`, or
    /// `[named] article` when it is written with "the" ("the Coa"; decision 0216).
    pub(crate) fn bare_kinds(&self, with_article: bool) -> &[String] {
        if with_article {
            &self.bare_article
        } else {
            &self.bare
        }
    }

    /// The scenario place kinds a terrain noun names ("village" → village, town), `[kinds]`.
    pub(crate) fn place_kinds(&self, noun: &str) -> Option<&[String]> {
        self.kinds.get(noun).map(Vec::as_slice)
    }

    /// A negator (lower-case, any spacing) whose object is what is forbidden ("avoid",
    /// "refrain from", "without engaging"): lexicon value `avoid` (rule `neg.avoid`).
    pub(crate) fn is_avoid_negator(&self, phrase: &str) -> bool {
        self.avoid
            .contains(&phrase.split_whitespace().collect::<Vec<_>>().join(" "))
    }

    /// A condition (its whole text, any case and spacing) that waits for the sender's own order
    /// or signal: "on my order", "when I send word" (lexicon value `awaits-order`, decision 0207).
    pub(crate) fn awaits_order(&self, condition: &str) -> bool {
        let w = words(condition.trim_end_matches(['.', ',', ';', ':'])).join(" ");
        self.awaits.contains(&w)
    }

    /// A lower-case noun of an action ("retreat", "passage", "crossing"): `[actions]`.
    /// The lemma of a past form ("crossed" → "cross", "fallen back" → "fall back"), given as
    /// lower-case words joined by one space.
    pub(crate) fn lemma_of(&self, past: &str) -> Option<&str> {
        self.lemmas.get(past).map(String::as_str)
    }

    /// The action of a verb of the lexicon, by its lemma ("take" → attack).
    pub(crate) fn verb_action(&self, lemma: &str) -> Option<Action> {
        let ws = words(lemma);
        self.phrases
            .get(ws.first()?)?
            .iter()
            .find_map(|(p, k)| match k {
                Kind::Verb(a) if *p == ws => Some(*a),
                _ => None,
            })
    }

    pub(crate) fn is_action_noun(&self, word: &str) -> bool {
        self.action_nouns.contains(word)
    }

    /// A folded word names troops ("enemy", "lancers", "Division").
    pub(crate) fn is_troop_word(&self, folded: &str) -> bool {
        self.troops.contains(folded)
    }

    /// A folded word is an ordinal written out ("first", "third"): "the first column" is a
    /// body of troops (rule `name.ordinal-troops`).
    pub(crate) fn is_ordinal(&self, folded: &str) -> bool {
        self.ordinals.contains(folded)
    }

    /// A folded word is a title or names people ("sir", "marshal", "soldiers"): a name that
    /// begins with one is a person, not a place.
    pub(crate) fn is_title(&self, folded: &str) -> bool {
        self.titles.contains(folded)
    }

    /// A whole name is one of the period's commanders (`[persons]`: "Soult", "Le Cor",
    /// "Soult's"): a person, so the troops he leads, never a place (rule `name.person`).
    pub(crate) fn is_person(&self, name: &str) -> bool {
        let bare = name
            .strip_suffix("'s")
            .or_else(|| name.strip_suffix("’s"))
            .unwrap_or(name);
        // Written as a name: "the hill" is ground, "Hill" a general.
        bare.chars().any(char::is_uppercase) && self.persons.contains(&crate::text::fold(bare))
    }

    /// A lower-case word is a month ("february", rule `time.between`).
    pub(crate) fn is_month(&self, word: &str) -> bool {
        self.months.contains(word)
    }

    /// A name is a date ("the 19th of April", "April 19th", "May 1814"): a month and
    /// ordinals or numbers only (rule `name.date`), never a place.
    pub(crate) fn is_date(&self, name: &str) -> bool {
        let ws: Vec<String> = name
            .split_whitespace()
            .map(|w| w.trim_matches(',').to_lowercase())
            .collect();
        let ordinal = |w: &str| {
            let d = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            !d.is_empty()
                && d.chars().all(|c| c.is_ascii_digit())
                && matches!(&w[d.len()..], "" | "st" | "nd" | "rd" | "th" | "d")
        };
        ws.iter().any(|w| self.months.contains(w))
            && ws
                .iter()
                .all(|w| self.months.contains(w) || ordinal(w) || w == "of" || w == "the")
    }

    /// A folded word says whose troops, not which ("enemy", "English"): see rule
    /// `limit.troops`.
    pub(crate) fn is_nation(&self, folded: &str) -> bool {
        self.nations.contains(folded)
    }

    /// A lower-case word is a terrain noun ("heights", "position").
    pub(crate) fn is_terrain(&self, word: &str) -> bool {
        self.terrain.contains(word)
    }

    /// A lower-case noun that places something relative to a named place ("the foot of the
    /// Medellin", "the west bank of the Viskan"): rule `name.edges` keeps only the named place.
    pub(crate) fn is_relation(&self, word: &str) -> bool {
        self.relations.contains(word)
    }

    /// A lower-case word that may stand inside a name ("north road", "upper town").
    pub(crate) fn is_name_adjective(&self, word: &str) -> bool {
        self.adjectives.contains(word)
    }

    /// A single folded word is a verb of the lexicon (an action or a verb that is no stage,
    /// such as "allow" or "destroy").
    pub(crate) fn is_verb_word(&self, word: &str) -> bool {
        self.phrases.get(word).is_some_and(|v| {
            v.iter()
                .any(|(p, k)| p.len() == 1 && matches!(k, Kind::Verb(_) | Kind::Word))
        }) && !self.finite.contains(word)
    }

    /// A lower-case phrase of the lexicon, whole, that is a verb or a word of its own ("keeping
    /// up": the -ing form of a verb that is no stage).
    pub(crate) fn is_verb_phrase(&self, phrase: &str) -> bool {
        let ws: Vec<&str> = phrase.split(' ').collect();
        self.phrases.get(ws[0]).is_some_and(|v| {
            v.iter()
                .any(|(p, k)| p == &ws && matches!(k, Kind::Verb(_) | Kind::Word))
        })
    }

    /// A single lower-case word is an auxiliary or modal (`[finite]`: "is", "will").
    pub(crate) fn is_finite(&self, word: &str) -> bool {
        self.finite.contains(word)
    }

    /// The text holds a finite verb (an auxiliary, or a verb form of the lexicon): it is
    /// English prose, not gibberish.
    pub(crate) fn reads_as_prose(&self, text: &str) -> bool {
        split_words(text, 0).iter().any(|(w, _)| {
            self.finite.contains(&**w)
                || self.phrases.get(&**w).is_some_and(|v| {
                    v.iter().any(|(p, k)| {
                        p.len() == 1
                            && matches!(k, Kind::Verb(_) | Kind::Word | Kind::Participle(_))
                    })
                })
        })
    }

    /// The kind of the longest phrase starting at word `i` of `ws`, with its length in words.
    /// Rule `verb.split-object`: the verb phrase `verb` (as written, one or more words) with
    /// its object taken out, completed by the first words of `tail` ("keep" + "in hand"): the
    /// action and the end (in `tail`'s offsets) of the words that complete it.
    pub(crate) fn split_verb(&self, verb: &str, tail: &str, off: usize) -> Option<(Action, usize)> {
        let mut ws = split_words(verb, 0);
        let n = ws.len();
        ws.extend(split_words(tail, off).into_iter().take(6));
        let (m, kind) = self.longest(&ws, 0)?;
        match kind {
            Kind::Verb(a) if m > n => Some((*a, ws[m - 1].1.1)),
            _ => None,
        }
    }

    fn longest(&self, ws: &[(Cow<'_, str>, Span)], i: usize) -> Option<(usize, &Kind)> {
        let cands = self.phrases.get(&*ws[i].0)?;
        cands.iter().find_map(|(p, k)| {
            (i + p.len() <= ws.len() && p.iter().zip(&ws[i..]).all(|(a, (b, _))| a == b))
                .then_some((p.len(), k))
        })
    }
}

/// Rule `word.ly-adverb`: a word of six letters or more ending in "-ly" that the lexicon does
/// not know is an adverb of manner ("closely", "earnestly", "gallantly"), never a name. The
/// nouns and adjectives of that shape a order may use are listed; a capitalised one inside a
/// name stays a name (`may_rewrite`).
fn ly_adverb(word: &str) -> bool {
    const NOT_ADVERBS: &[&str] = &[
        "family",
        "assembly",
        "sicily",
        "anomaly",
        "monopoly",
        "homily",
        "butterfly",
        "friendly",
        "unfriendly",
        "orderly",
        "elderly",
        "likely",
        "unlikely",
        "lively",
        "stately",
        "costly",
        "deadly",
        "lonely",
        "lovely",
        "timely",
        "daily",
        "weekly",
        "hourly",
        "nightly",
        "early",
        "woolly",
        "hilly",
        "kindly",
        "manly",
        "ghastly",
        "beastly",
        "cowardly",
        "soldierly",
        "scholarly",
        "leisurely",
        "comely",
        "seemly",
        "unseemly",
        "portly",
        "sprightly",
    ];
    word.len() >= 6
        && word.ends_with("ly")
        && !word.ends_with("ply")
        && word.bytes().all(|b| b.is_ascii_lowercase())
        && !NOT_ADVERBS.contains(&word)
}

/// The words of `text` (letters, digits, inner apostrophes and hyphens), lower-cased, with byte
/// spans offset by `off`.
pub(crate) fn split_words(text: &str, off: usize) -> Vec<(Cow<'_, str>, Span)> {
    // Hot path (issue 11): one pass with a one-character look-ahead, no table of characters,
    // and no allocation for an ASCII word already in lower case (ASCII has no '’').
    let lower = |w| {
        if str::is_ascii(w) {
            w.lower()
        } else {
            Cow::Owned(w.to_lowercase().replace('’', "'"))
        }
    };
    let mut out = Vec::with_capacity(text.len() / 5 + 1);
    let mut start: Option<usize> = None;
    let is_word = |c: char| c.is_alphanumeric();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let inner = (c == '\'' || c == '’' || c == '-')
            && start.is_some()
            && chars.peek().is_some_and(|(_, n)| is_word(*n));
        if is_word(c) || inner || (c.is_alphabetic() && start.is_some()) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            out.push((lower(&text[s..i]), (off + s, off + i)));
        }
    }
    if let Some(s) = start {
        out.push((lower(&text[s..]), (off + s, off + text.len())));
    }
    out
}

fn inside(a: Span, outer: Span) -> bool {
    a.0 >= outer.0 && a.1 <= outer.1
}

fn overlaps(a: Span, b: Span) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// A token the lexicon may replace or split: what the grammar took for a name or a filler
/// word, a bare preposition or connector word inside an idiom, or a shorter keyword phrase.
fn replaceable(t: &Tok) -> bool {
    !matches!(
        t,
        Tok::Header(_)
            | Tok::Courtesy(_)
            | Tok::Addressee(_)
            | Tok::TypeLabel(..)
            | Tok::Preset { .. }
            | Tok::Recipient { .. }
            | Tok::Attached(..)
            | Tok::Independent(_)
            | Tok::Negate(_)
    )
}

/// A simple name the lexicon may cut a word out of ("account" in "on no account").
fn simple_name(t: &Tok) -> Option<&Target> {
    match t {
        Tok::Place(x) if matches!(x.form, Form::Name) && x.parts.is_empty() => Some(x),
        _ => None,
    }
}

/// [`simple_name`], or for a filler word of the lexicon also the recipient's own things it
/// ends ("its present position whilst": "whilst" is cut off, the rest stays its own).
/// Only its last word, after two others: "your report" keeps its noun.
fn cuttable<'t>(text: &str, t: &'t Tok, kind: &Kind, m: Span) -> Option<&'t Target> {
    simple_name(t).or(match t {
        Tok::Place(x)
            if x.form == Form::Own
                && x.parts.is_empty()
                && *kind == Kind::Word
                && x.span.1 == m.1
                && text[x.span.0..m.0].split_whitespace().count() >= 2 =>
        {
            Some(x)
        }
        // "behind the Portina whilst": the last word of a relation's name.
        Tok::Relation { target: x, .. }
            if x.form == Form::Name
                && x.parts.is_empty()
                && *kind == Kind::Word
                && x.span.1 == m.1
                && x.span.0 < m.0 =>
        {
            Some(x)
        }
        _ => None,
    })
}

/// The piece of a name target that lies in `keep` (trimmed), if any.
fn piece(text: &str, t: &Target, keep: Span) -> Option<Tok> {
    let (a, b) = (keep.0.max(t.span.0), keep.1.min(t.span.1));
    if a >= b {
        return None;
    }
    let raw = &text[a..b];
    let lead = raw.len() - raw.trim_start().len();
    let mut s = raw.trim();
    // A name never ends in a linking word: "a finer opportunity of" cut before "destroying"
    // is "a finer opportunity".
    while let Some((head, last)) = s.rsplit_once(char::is_whitespace)
        && super::names::is_link(&last.lower())
    {
        s = head.trim_end();
    }
    if s.is_empty() {
        return None;
    }
    let span = (a + lead, a + lead + s.len());
    let name = crate::text::nfc(s);
    // The article stays with the first piece only.
    let (phrase, phrase_span) = if a == t.span.0 {
        (t.phrase.clone(), (t.phrase_span.0, span.1))
    } else {
        (name.clone(), span)
    };
    let phrase = if a == t.span.0 && phrase_span.1 != t.phrase_span.1 {
        crate::text::nfc(text[phrase_span.0..phrase_span.1].trim())
    } else {
        phrase
    };
    Some(Tok::Place(Target {
        // The first piece of the recipient's own things stays his ("its present position").
        form: if a == t.span.0 { t.form } else { Form::Name },
        text: name,
        span,
        phrase,
        phrase_span,
        hexes: Vec::new(),
        within: None,
        parts: Vec::new(),
    }))
}

/// The token a lexicon match becomes.
fn token(kind: &Kind, text: &str, span: Span) -> Tok {
    let lower = text[span.0..span.1].to_lowercase();
    match kind {
        Kind::Verb(a) => Tok::Verb {
            action: *a,
            verb: lower,
            span,
        },
        Kind::Word => Tok::Filler(span),
        Kind::Participle(a) => Tok::Participle { action: *a, span },
        Kind::Negator => Tok::Negate(span),
        Kind::Courtesy => Tok::Courtesy(span),
        Kind::Immediate => Tok::Timing {
            prep: "immediate".into(),
            value: None,
            span,
        },
        Kind::Manner | Kind::Duration => Tok::Manner(lower, span),
        Kind::Condition => Tok::CondStart(lower, span),
        Kind::Purpose => Tok::Purpose(span),
    }
}

/// Lay the lexicon over one sentence's tokens (`text` is the whole input; `sent` the
/// sentence's span). Linear in the sentence: each word is tried once against the phrases that
/// start with it.
pub(crate) fn rewrite(text: &str, sent: Span, toks: Vec<Tok>) -> Vec<Tok> {
    let lex = get();
    let ws = split_words(&text[sent.0..sent.1], sent.0);
    let mut toks = toks;
    let mut i = 0;
    while i < ws.len() {
        let Some((n, kind)) = lex
            .longest(&ws, i)
            .or_else(|| ly_adverb(&ws[i].0).then_some((1, &Kind::Manner)))
        else {
            i += 1;
            continue;
        };
        let m = (ws[i].1.0, ws[i + n - 1].1.1);
        // Tokens are in text order: start at the first that ends after the match begins.
        let from = toks.partition_point(|t| t.span().1 <= m.0);
        let hit: Vec<usize> = (from..toks.len())
            .take_while(|&k| toks[k].span().0 < m.1)
            .filter(|&k| overlaps(toks[k].span(), m))
            .collect();
        let ok = may_rewrite(text, &toks, &hit, m, kind);
        if !ok {
            i += 1;
            continue;
        }
        let mut repl: Vec<Tok> = Vec::new();
        let first = hit[0];
        let last = *hit.last().expect("hit is not empty");
        if let Some(t) = cuttable(text, &toks[first], kind, m)
            && t.span.0 < m.0
        {
            let p = piece(text, t, (t.span.0, m.0));
            // A relation keeps its word on the piece of its name.
            repl.extend(match (&toks[first], p) {
                (Tok::Relation { rel, span, .. }, Some(Tok::Place(x))) => Some(Tok::Relation {
                    rel: rel.clone(),
                    span: (span.0, x.phrase_span.1),
                    target: x,
                }),
                (_, p) => p,
            });
        }
        repl.push(token(kind, text, m));
        if let Some(t) = cuttable(text, &toks[last], kind, m)
            && t.span.1 > m.1
        {
            repl.extend(piece(text, t, (m.1, t.span.1)));
        }
        toks.splice(first..=last, repl);
        i += n;
    }
    toks
}

/// Whether a lexicon match `m` of `kind` may replace the tokens `hit` it overlaps.
fn may_rewrite(text: &str, toks: &[Tok], hit: &[usize], m: Span, kind: &Kind) -> bool {
    let Some(&first) = hit.first() else {
        return false;
    };
    if !hit.iter().all(|&k| {
        let t = &toks[k];
        replaceable(t) && (inside(t.span(), m) || cuttable(text, t, kind, m).is_some())
    }) {
        return false;
    }
    // A keyword phrase the grammar already read exactly is left alone.
    if hit.len() == 1
        && toks[first].span() == m
        && !matches!(toks[first], Tok::Filler(_) | Tok::Place(_))
    {
        return false;
    }
    let verbish = matches!(kind, Kind::Verb(_) | Kind::Word | Kind::Participle(_));
    let capital = text[m.0..].chars().next().is_some_and(char::is_uppercase);
    for &k in hit {
        let Some(t) = simple_name(&toks[k]) else {
            continue;
        };
        // A word after an article inside a name is a noun ("the station", "the advance").
        if verbish && t.phrase_span.0 < t.span.0 && m.0 == t.span.0 {
            return false;
        }
        // A capitalised word inside a name stays a name unless it opens the sentence, or a
        // known title of several words covers it whole ("the Minister at War").
        let title = *kind == Kind::Word && text[m.0..m.1].contains(' ');
        if capital && first > 0 && !opens_body(&toks[..first]) && !title {
            return false;
        }
    }
    true
}

/// Only leads, courtesies and punctuation come before: the next word opens the order's body.
fn opens_body(before: &[Tok]) -> bool {
    before.iter().all(|t| {
        matches!(
            t,
            Tok::Header(_)
                | Tok::Courtesy(_)
                | Tok::Punct(_)
                | Tok::Recipient { .. }
                | Tok::Addressee(_)
                | Tok::Connector(..)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexicon_loads_and_knows_its_words() {
        let l = get();
        let ws = split_words("take post in reserve", 0);
        assert_eq!(l.longest(&ws, 0).map(|x| x.0), Some(4));
        assert!(l.is_troop_word("lancers"));
        assert!(l.is_terrain("heights"));
    }

    #[test]
    fn base_forms_undo_the_third_person() {
        for (form, base) in [
            ("advances", "advance"),
            ("carries", "carry"),
            ("marches", "march"),
            ("crosses", "cross"),
            ("pushes", "push"),
            ("falls back", "fall back"),
            ("goes", "go"),
            ("bivouacs", "bivouac"),
            ("cross", "cross"),
            ("attack", "attack"),
            ("pass", "pass"),
        ] {
            assert_eq!(base_form(form), base, "{form}");
        }
        // The inverse of every regular -s form the lexicon generates.
        for lemma in [
            "advance",
            "carry",
            "march",
            "cross",
            "retire",
            "fall back",
            "halt",
        ] {
            assert_eq!(base_form(&inflect(lemma).0), lemma);
        }
    }

    #[test]
    fn inflections_follow_english_spelling() {
        assert_eq!(inflect("march").0, "marches");
        assert_eq!(inflect("carry").0, "carries");
        assert_eq!(inflect("move").1, vec!["moved", "moving"]);
        assert_eq!(inflect("push on").0, "pushes on");
        assert_eq!(inflect("stay").0, "stays");
    }

    #[test]
    fn adding_a_word_is_one_line_of_data() {
        // The same loader over a one-line file: the word becomes a verb of its action.
        let f: File = toml::from_str(
            "[verbs]\nsally = \"attack\"\n[negators]\n[idioms]\n[troops]\nwords=[]\n[terrain]\nnouns=[]\n[finite]\nwords=[]\n",
        )
        .unwrap();
        let l = Lexicon::from_file(f);
        let ws = split_words("sallies", 0);
        assert_eq!(l.longest(&ws, 0), Some((1, &Kind::Verb(Action::Attack))));
    }
}
