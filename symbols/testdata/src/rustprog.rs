use std::collections::HashMap;
mod geometry {
    pub struct Shape { pub w: f64, pub h: f64 }
    impl Shape {
        #[inline(never)]
        pub fn area(&self) -> f64 { self.w * self.h }
    }
    pub trait Describe { fn describe(&self) -> String; }
    impl Describe for Shape {
        #[inline(never)]
        fn describe(&self) -> String { format!("{}x{}", self.w, self.h) }
    }
}
#[inline(never)]
fn generic<T: std::fmt::Debug + Clone>(v: &[T]) -> Vec<T> { let mut o = v.to_vec(); o.reverse(); println!("{:?}", o.len()); o }
fn main() {
    let mut m: HashMap<String, f64> = HashMap::new();
    for i in 0..10 {
        let s = geometry::Shape { w: i as f64, h: 2.0 };
        use geometry::Describe;
        m.insert(s.describe(), s.area());
    }
    let v = generic(&[1, 2, 3]);
    let w = generic(&["a".to_string()]);
    let c = |x: i32| x * 2;
    println!("{} {} {} {}", m.len(), v.len(), w.len(), c(3));
}
