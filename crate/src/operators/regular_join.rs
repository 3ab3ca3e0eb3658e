//! PLACEHOLDER: being written. Does nothing yet.

use super::{Ctx, Operator};
use crate::parse::Side;
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::timers::Timer;
use crate::trace::StateEntry;

pub struct RegularJoin;

impl Operator for RegularJoin {
    type Ns = ();
    fn new(_plan: &Plan, _subtask: SubtaskIndex) -> Self {
        RegularJoin
    }
    fn process_element(&mut self, _cx: &mut Ctx<'_, ()>, _side: Side, _row: RowId) {}
    fn on_event_time(&mut self, _cx: &mut Ctx<'_, ()>, _timer: Timer<KeyId, ()>) {}
    fn describe_timer(_ns: &()) -> String {
        String::new()
    }
    fn state(&self) -> Vec<StateEntry> {
        Vec::new()
    }
    fn is_empty(&self) -> bool {
        true
    }
}
