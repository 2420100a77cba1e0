//! The lifecycle of every operation a connection can have in flight, in one place: each
//! kind of operation is `Idle`, `InFlight` or `Cancelling`, changed only by
//! [`OpStates::submitted`] and [`OpStates::completed`]. "Anything in flight?" is derived
//! from these states, never counted by hand, so a connection's memory is released only
//! when the kernel has finished with every operation that names it (`DESIGN.md`, rule 1).

use crate::files::transfer::FileOp;
use crate::token::Kind;

/// Where one operation kind of a connection stands. A zero-copy send completes twice:
/// first with its result and `IORING_CQE_F_MORE`, later with a notification
/// (`IORING_CQE_F_NOTIF`) once the kernel no longer reads its memory. It ends at the
/// first: it only ever names a `'static` body, so nothing has to wait for the
/// notification (which may never come while a peer holds the data unread), and the event
/// loop drops it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stage {
    /// Nothing of this kind is submitted.
    #[default]
    Idle,
    /// Submitted (pushed, or a syscall under way); its final completion (one without
    /// `IORING_CQE_F_MORE`, or the syscall's result) has not been reported.
    InFlight,
    /// Submitted, and a cancel naming it was submitted too; still awaiting its final
    /// completion, which the cancel makes prompt.
    Cancelling,
}

impl Stage {
    pub fn is_idle(self) -> bool {
        self == Stage::Idle
    }
}

/// An operation a connection asks for next: most are one submission; a shutdown of a
/// regular descriptor, a file's stat (where the root reads without waiting) and a
/// sendfile are syscalls made at once (`ops::carry_out`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Arm a multishot receive into the provided-buffer ring.
    Recv,
    /// One plain recv straight into the connection's input.
    RecvInto,
    /// Send the unsent output.
    Send,
    /// Shut down the write side (FIN) after the last response.
    Shutdown,
    /// Cancel the armed receive: it is no longer wanted (`Conn::next_op`'s
    /// `wanted_cancel` says why: output backed up, input held behind a file, the wrong
    /// kind of recv, requests it would hold, or the peer's end of input).
    CancelRecv,
    /// Cancel every operation on the socket: the connection is ending.
    CancelAll,
    /// Close the descriptor; the slot is freed on its completion.
    Close,
    /// The next step of a `/files/{name}` answer: open, stat, read, sendfile, or a poll for
    /// room in the socket (`FileOp`).
    File(FileOp),
    /// Cancel the file operation in flight: the connection is ending.
    CancelFile,
}

impl Op {
    /// The `user_data` kind its completion carries.
    pub fn kind(self) -> Kind {
        match self {
            Op::Recv | Op::RecvInto => Kind::Recv,
            Op::Send => Kind::Send,
            Op::Shutdown => Kind::Shutdown,
            Op::CancelRecv | Op::CancelAll => Kind::Cancel,
            Op::Close => Kind::Close,
            Op::File(_) => Kind::File,
            Op::CancelFile => Kind::FileCancel,
        }
    }
}

/// The stage of each operation kind of one connection.
#[derive(Debug, Default)]
pub struct OpStates {
    pub recv: Stage,
    pub send: Stage,
    pub shutdown: Stage,
    pub cancel: Stage,
    pub close: Stage,
    /// The file operation of a `/files/{name}` answer (one at a time), and its cancel:
    /// not on the socket, so a cancel-all by descriptor does not reach it.
    pub file: Stage,
    pub file_cancel: Stage,
    /// A cancel-all went out since the last tick; another is sent only on a later tick,
    /// should an operation have slipped past it (e.g. one the cancel found running).
    pub cancel_all_sent: bool,
}

impl OpStates {
    /// Operations submitted whose final completion has not arrived.
    pub fn in_flight(&self) -> usize {
        let stages = [self.recv, self.send, self.shutdown, self.cancel, self.close];
        (stages.iter().chain(&[self.file, self.file_cancel]))
            .filter(|stage| !stage.is_idle())
            .count()
    }

    /// Operations on the socket that a cancel-all can end (all but cancel and close).
    pub fn socket_ops_in_flight(&self) -> bool {
        !(self.recv.is_idle() && self.send.is_idle() && self.shutdown.is_idle())
    }

    /// `op` is being carried out (`ops::carry_out`): pushed to the submission queue, or
    /// made at once as a syscall, whose result is then reported through
    /// [`OpStates::completed`] as its final completion.
    pub fn submitted(&mut self, op: Op) {
        match op {
            Op::Recv | Op::RecvInto => self.recv = Stage::InFlight,
            Op::Send => self.send = Stage::InFlight,
            Op::Shutdown => self.shutdown = Stage::InFlight,
            Op::CancelRecv => {
                self.cancel = Stage::InFlight;
                self.recv = cancelled(self.recv);
            }
            Op::CancelAll => {
                self.cancel = Stage::InFlight;
                self.cancel_all_sent = true;
                self.recv = cancelled(self.recv);
                self.send = cancelled(self.send);
                self.shutdown = cancelled(self.shutdown);
            }
            Op::Close => self.close = Stage::InFlight,
            Op::File(_) => self.file = Stage::InFlight,
            Op::CancelFile => {
                self.file_cancel = Stage::InFlight;
                self.file = cancelled(self.file);
            }
        }
    }

    /// A completion of `kind` arrived; `more` says the operation continues (multishot).
    pub fn completed(&mut self, kind: Kind, more: bool) {
        // Only a zero-copy send reports MORE among sends, and it ends here (see `Stage`).
        if more && kind != Kind::Send {
            return;
        }
        let stage = match kind {
            Kind::Recv => &mut self.recv,
            Kind::Send => &mut self.send,
            Kind::Shutdown => &mut self.shutdown,
            Kind::Cancel => &mut self.cancel,
            Kind::Close => &mut self.close,
            Kind::File => &mut self.file,
            Kind::FileCancel => &mut self.file_cancel,
            Kind::Accept | Kind::Timer | Kind::Wake | Kind::Control => return,
        };
        *stage = Stage::Idle;
    }
}

fn cancelled(stage: Stage) -> Stage {
    match stage {
        Stage::Idle => Stage::Idle,
        Stage::InFlight | Stage::Cancelling => Stage::Cancelling,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_flight_is_derived_from_the_stages() {
        let mut ops = OpStates::default();
        ops.submitted(Op::Recv);
        ops.submitted(Op::Send);
        assert_eq!(ops.in_flight(), 2);
        ops.completed(Kind::Recv, true);
        assert_eq!(
            ops.in_flight(),
            2,
            "a multishot completion with MORE keeps it armed"
        );
        ops.submitted(Op::CancelAll);
        assert_eq!(
            (ops.recv, ops.send, ops.in_flight()),
            (Stage::Cancelling, Stage::Cancelling, 3)
        );
        ops.completed(Kind::Cancel, false);
        ops.completed(Kind::Recv, false);
        assert!(ops.socket_ops_in_flight(), "the send is still out");
        ops.completed(Kind::Send, false);
        assert_eq!(ops.in_flight(), 0);
        assert!(!ops.socket_ops_in_flight());
    }

    #[test]
    fn a_zero_copy_send_ends_with_its_result() {
        let mut ops = OpStates::default();
        ops.submitted(Op::Send);
        ops.completed(Kind::Send, true);
        assert_eq!(
            (ops.send, ops.in_flight()),
            (Stage::Idle, 0),
            "the result, with MORE, ends it: the notification names only a 'static body"
        );
        ops.submitted(Op::Recv);
        ops.completed(Kind::Recv, true);
        assert_eq!(ops.recv, Stage::InFlight, "a multishot recv goes on");
    }

    #[test]
    fn cancelling_an_idle_operation_leaves_it_idle() {
        let mut ops = OpStates::default();
        ops.submitted(Op::CancelRecv);
        assert_eq!((ops.recv, ops.cancel), (Stage::Idle, Stage::InFlight));
    }

    #[test]
    fn a_file_operation_counts_in_flight_until_its_completion_even_cancelled() {
        let mut ops = OpStates::default();
        ops.submitted(Op::File(FileOp::Read));
        ops.submitted(Op::CancelAll);
        assert_eq!(
            ops.file,
            Stage::InFlight,
            "a cancel-all by socket does not reach it"
        );
        assert!(!ops.socket_ops_in_flight());
        ops.submitted(Op::CancelFile);
        ops.completed(Kind::Cancel, false);
        ops.completed(Kind::FileCancel, false);
        assert_eq!((ops.file, ops.in_flight()), (Stage::Cancelling, 1));
        ops.completed(Kind::File, false);
        assert_eq!(ops.in_flight(), 0);
    }
}
