//! The per-list part of the export cache: a frozen array whose unchanged items keep their JS
//! objects across exports.

use crate::wasm::js::{frozen_array, splice_frozen};
use js_sys::Reflect;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

/// A per-list cache: the last exported array and its items' revs, in order.
///
/// Item revs are unique within a list (every new version of an item takes a fresh stamp),
/// so an item whose rev is unchanged is the same object. A new export reuses the longest
/// unchanged prefix and suffix of the last array in one JS call, and builds (or finds in the
/// old array) only what lies between: a streamed update touches the last item, a prepended
/// page adds items in front, and neither pays for the whole list.
#[derive(Default)]
pub(crate) struct Items {
    revs: Vec<u64>,
    array: Option<(u64, JsValue)>,
}

impl Items {
    /// The list's frozen array; `build` makes a frozen array of new items (in one go).
    pub(crate) fn export<T>(
        &mut self,
        rev: u64,
        items: &[Rc<T>],
        item_rev: impl Fn(&T) -> u64,
        build: impl Fn(&[Rc<T>]) -> JsValue,
    ) -> JsValue {
        if let Some((r, a)) = &self.array {
            if *r == rev {
                return a.clone();
            }
        }
        let mut revs: Vec<u64> = Vec::with_capacity(items.len());
        for it in items {
            revs.push(item_rev(it));
        }
        let arr = match &self.array {
            None => build(items),
            Some((_, old)) => {
                let (before, after) = (&self.revs, &revs);
                let prefix = before.iter().zip(after).take_while(|(a, b)| a == b).count();
                let most = before.len().min(after.len()) - prefix;
                let suffix = before.iter().rev().zip(after.iter().rev()).take(most).take_while(|(a, b)| a == b).count();
                let gone = &before[prefix..before.len() - suffix];
                let middle = &items[prefix..items.len() - suffix];
                let moved = |it: &Rc<T>| gone.iter().position(|g| *g == item_rev(it));
                let middle = if middle.iter().any(|it| moved(it).is_some()) {
                    // Items that moved (a re-sorted list) keep their objects.
                    let mut objs = Vec::with_capacity(middle.len());
                    for it in middle {
                        objs.push(match moved(it) {
                            Some(i) => Reflect::get_u32(old, (prefix + i) as u32).unwrap_or(JsValue::UNDEFINED),
                            None => Reflect::get_u32(&build(std::slice::from_ref(it)), 0).unwrap_or(JsValue::UNDEFINED),
                        });
                    }
                    frozen_array(objs.into_iter())
                } else {
                    build(middle)
                };
                splice_frozen(old, prefix as u32, (before.len() - suffix) as u32, &middle)
            }
        };
        self.revs = revs;
        self.array = Some((rev, arr.clone()));
        arr
    }
}

impl Items {
    /// Forgets the last export unless it is the list at `rev` (see `SessionExport::let_go`).
    pub(crate) fn let_go(&mut self, rev: u64) {
        if self.array.as_ref().is_some_and(|(r, _)| *r != rev) {
            *self = Items::default();
        }
    }

    /// Takes `array` as the last export when it holds as many items (the shell's cache made
    /// them equal to what it replaces, docs/API.md "Local cache"), so later exports splice
    /// from its objects; `false` when it does not fit.
    pub(crate) fn adopt(&mut self, array: JsValue) -> bool {
        let len = array.dyn_ref::<js_sys::Array>().map(|a| a.length() as usize);
        let fits = self.array.is_some() && len == Some(self.revs.len());
        if let (true, Some((_, a))) = (fits, &mut self.array) {
            *a = array;
        }
        fits
    }
}

/// Frozen objects of `items` built one by one.
pub(crate) fn each<T>(items: &[Rc<T>], build: impl Fn(&T) -> JsValue) -> JsValue {
    // Gathered in a plain loop: one `frozen_array` copy (over `vec::IntoIter`) for every caller.
    let mut objs = Vec::with_capacity(items.len());
    for it in items {
        objs.push(build(it));
    }
    frozen_array(objs.into_iter())
}
