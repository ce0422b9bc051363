// shapes.rs exercises mangling constructs for the demangler corpus
// (gen_corpus.go builds it with both manglings): generics, closures,
// trait objects, impls, arrays, tuples, references, fn pointers, const
// generics, lifetimes and non-ASCII identifiers.
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::rc::Rc;

pub trait Area {
    fn area(&self) -> f64;
}

#[derive(Debug, Clone)]
pub struct Square<const N: usize>([f64; N]);

impl<const N: usize> Area for Square<N> {
    fn area(&self) -> f64 {
        self.0.iter().map(|x| x * x).sum()
    }
}

pub struct Pair<'a, T>(&'a T, &'a mut Vec<T>);

impl<'a, T: Clone + Debug> Pair<'a, T> {
    #[inline(never)]
    pub fn push(&mut self) -> usize {
        self.1.push(self.0.clone());
        self.1.len()
    }
}

#[inline(never)]
pub fn apply<F: Fn(i32) -> i32>(f: F, v: i32) -> i32 {
    f(v)
}

#[inline(never)]
pub fn call_ptr(f: fn(&str) -> usize, s: &str) -> usize {
    f(s)
}

#[inline(never)]
pub fn dynamic(items: &[Box<dyn Area>]) -> f64 {
    items.iter().map(|a| a.area()).sum()
}

#[inline(never)]
pub fn tuple<A: Debug, B: Debug>(t: (A, B), arr: [u8; 4], p: *const u16) -> String {
    format!("{:?} {:?} {:?}", t, arr, p)
}

#[inline(never)]
pub fn größe(v: &[u32]) -> usize {
    v.len()
}

#[inline(never)]
pub fn higher(f: &dyn for<'x> Fn(&'x str) -> &'x str) -> usize {
    f("abc").len()
}

#[inline(never)]
pub fn flag<const B: bool, const C: char>() -> String {
    format!("{}{}", B, C)
}

fn main() {
    let shapes: Vec<Box<dyn Area>> = vec![Box::new(Square([1.0, 2.0])), Box::new(Square([3.0; 3]))];
    let mut m: HashMap<(u8, i64), Rc<String>> = HashMap::new();
    m.insert((1, -2), Rc::new("x".into()));
    let mut b: BTreeMap<&str, Vec<Option<char>>> = BTreeMap::new();
    b.insert("k", vec![Some('z'), None]);
    let mut v = vec![1u64];
    let mut p = Pair(&7u64, &mut v);
    let k = 3;
    let r = apply(|x| x + k, 4) as usize
        + apply(move |x| x * k, 5) as usize
        + call_ptr(str::len, "hello")
        + p.push()
        + größe(&[1, 2, 3])
        + higher(&|s| &s[1..]);
    let t = tuple(("a", 1.5f32), [1, 2, 3, 4], &0u16);
    let mut it = (0..10).filter(|x| x % 3 == 0).map(|x| x * 2);
    let n: Vec<i32> = it.by_ref().collect();
    let f = flag::<true, 'q'>();
    println!("{} {} {} {} {} {:?} {:?} {}", dynamic(&shapes), m.len(), b.len(), r, t, n, it.next(), f);
}
