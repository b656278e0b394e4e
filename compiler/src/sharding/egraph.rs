//! The e-graph of physical values that propagation saturates.
//!
//! An e-class is one *physical value*: a logical value of the program in one [`Layout`].
//! Its e-nodes are the ways to obtain it:
//!
//! - [`PNode::Arg`]: the function argument, arriving in that layout;
//! - [`PNode::Local`]: the op that defines the value, run on every device on its
//!   operands' pieces (children: one class per operand, in the layouts the op's rule
//!   asks for);
//! - [`PNode::Reshard`]: a collective plan applied to another layout of the same value.
//!
//! Classes are keyed by `(value, layout)`; a node always joins the class of its key, so
//! two classes are never merged by accident. Extraction picks one node per needed class.

use crate::sharding::layout::Layout;
use crate::sharding::reshard::Plan;
use egg::{Analysis, DidMerge, EGraph, Id, Language};
use shardc_ir::{OpId, ValueId};
use std::collections::HashMap;
use std::hash::Hash;

/// An interned layout.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct LayoutId(pub u32);

/// An interned resharding plan.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct PlanId(pub u32);

/// Interns values of `T`, handing out dense indices.
#[derive(Clone, Debug)]
pub struct Interner<T: Eq + Hash + Clone> {
    items: Vec<T>,
    index: HashMap<T, u32>,
}

impl<T: Eq + Hash + Clone> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            items: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<T: Eq + Hash + Clone> Interner<T> {
    /// The number of `t`, given it if new.
    pub fn intern(&mut self, t: &T) -> u32 {
        if let Some(&i) = self.index.get(t) {
            return i;
        }
        let i = u32::try_from(self.items.len()).expect("fewer than 2^32 interned items");
        self.items.push(t.clone());
        self.index.insert(t.clone(), i);
        i
    }

    /// The item numbered `i`.
    pub fn get(&self, i: u32) -> &T {
        &self.items[i as usize]
    }

    /// How many items it holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// One way to obtain a physical value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PNode {
    /// Argument `index` as it arrives, in `layout`.
    Arg {
        /// The argument.
        index: u32,
        /// The layout it arrives in.
        layout: LayoutId,
    },
    /// Result `result` of op `op` computed on local pieces, in `layout`, from its operands' classes `children`.
    Local {
        /// The op.
        op: OpId,
        /// Which result.
        result: u32,
        /// The result's layout.
        layout: LayoutId,
        /// The classes of its operands.
        children: Vec<Id>,
    },
    /// The value of class `child` resharded by `plan` into `layout`.
    Reshard {
        /// The resharding steps.
        plan: PlanId,
        /// The layout it makes.
        layout: LayoutId,
        /// The class resharded.
        child: [Id; 1],
    },
}

impl PNode {
    /// The layout the node gives.
    pub fn layout(&self) -> LayoutId {
        match self {
            PNode::Arg { layout, .. }
            | PNode::Local { layout, .. }
            | PNode::Reshard { layout, .. } => *layout,
        }
    }
}

/// What a node is without its layout and children (the e-graph's operator).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PNodeKind {
    /// An argument.
    Arg(u32),
    /// A result of an op computed locally.
    Local(OpId, u32),
    /// A resharding plan.
    Reshard(PlanId),
}

impl Language for PNode {
    type Discriminant = (PNodeKind, LayoutId);

    fn discriminant(&self) -> Self::Discriminant {
        let kind = match self {
            PNode::Arg { index, .. } => PNodeKind::Arg(*index),
            PNode::Local { op, result, .. } => PNodeKind::Local(*op, *result),
            PNode::Reshard { plan, .. } => PNodeKind::Reshard(*plan),
        };
        (kind, self.layout())
    }

    fn matches(&self, other: &Self) -> bool {
        self.discriminant() == other.discriminant()
            && self.children().len() == other.children().len()
    }

    fn children(&self) -> &[Id] {
        match self {
            PNode::Arg { .. } => &[],
            PNode::Local { children, .. } => children,
            PNode::Reshard { child, .. } => child,
        }
    }

    fn children_mut(&mut self) -> &mut [Id] {
        match self {
            PNode::Arg { .. } => &mut [],
            PNode::Local { children, .. } => children,
            PNode::Reshard { child, .. } => child,
        }
    }
}

/// The analysis: which `(value, layout)` each class is.
#[derive(Clone, Debug, Default)]
pub struct ValueOf {
    /// The value of each function argument.
    pub args: Vec<ValueId>,
    /// The result values of each op, by op index.
    pub results: Vec<Vec<ValueId>>,
}

impl Analysis<PNode> for ValueOf {
    type Data = (ValueId, LayoutId);

    fn make(egraph: &mut EGraph<PNode, Self>, enode: &PNode, _id: Id) -> Self::Data {
        let a = &egraph.analysis;
        let value = match enode {
            PNode::Arg { index, .. } => a.args[*index as usize],
            PNode::Local { op, result, .. } => a.results[op.index()][*result as usize],
            PNode::Reshard { child, .. } => egraph[child[0]].data.0,
        };
        (value, enode.layout())
    }

    fn merge(&mut self, a: &mut Self::Data, b: Self::Data) -> DidMerge {
        debug_assert_eq!(*a, b, "classes of different physical values merged");
        DidMerge(false, false)
    }
}

/// The e-graph plus the tables that give its nodes meaning.
pub struct PGraph {
    /// The e-graph: a class per value and layout.
    pub egraph: EGraph<PNode, ValueOf>,
    /// The layouts its nodes name.
    pub layouts: Interner<Layout>,
    /// The resharding plans its nodes name.
    pub plans: Interner<Plan>,
    classes: HashMap<(ValueId, LayoutId), Id>,
    /// The layouts of each value, in the order they appeared.
    by_value: HashMap<ValueId, Vec<LayoutId>>,
}

impl PGraph {
    /// An empty graph.
    pub fn new(analysis: ValueOf) -> PGraph {
        PGraph {
            egraph: EGraph::new(analysis),
            layouts: Interner::default(),
            plans: Interner::default(),
            classes: HashMap::new(),
            by_value: HashMap::new(),
        }
    }

    /// The id of layout `l`, given it if new.
    pub fn layout_id(&mut self, l: &Layout) -> LayoutId {
        LayoutId(self.layouts.intern(l))
    }

    /// The layout numbered `id`.
    pub fn layout(&self, id: LayoutId) -> &Layout {
        self.layouts.get(id.0)
    }

    /// The plan numbered `id`.
    pub fn plan(&self, id: PlanId) -> &Plan {
        self.plans.get(id.0)
    }

    /// The class of a physical value, if it exists.
    pub fn class(&self, v: ValueId, l: LayoutId) -> Option<Id> {
        self.classes.get(&(v, l)).map(|&id| self.egraph.find(id))
    }

    /// The layouts a value has so far, in order of appearance.
    pub fn layouts_of(&self, v: ValueId) -> &[LayoutId] {
        self.by_value.get(&v).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Adds a node to the class of its `(value, layout)`; returns the class and whether
    /// the class is new.
    pub fn add(&mut self, node: PNode) -> (Id, bool) {
        let id = self.egraph.add(node);
        let key = self.egraph[id].data;
        match self.classes.get(&key) {
            Some(&existing) => {
                self.egraph.union(existing, id);
                (self.egraph.find(existing), false)
            }
            None => {
                self.classes.insert(key, id);
                self.by_value.entry(key.0).or_default().push(key.1);
                (id, true)
            }
        }
    }

    /// Every `(value, layout)` class.
    pub fn keys(&self) -> impl Iterator<Item = (&(ValueId, LayoutId), Id)> {
        self.classes
            .iter()
            .map(|(k, &id)| (k, self.egraph.find(id)))
    }

    /// How many classes (values in a layout) it holds.
    pub fn num_classes(&self) -> usize {
        self.classes.len()
    }

    /// How many nodes (ways to obtain them) it holds.
    pub fn num_nodes(&self) -> usize {
        self.egraph.total_size()
    }
}
