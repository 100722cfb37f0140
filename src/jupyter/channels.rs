//! The kernel's sockets, on a thread of their own with a current-thread
//! tokio runtime (the `zeromq` crate is async; the rest of grundy is not).
//!
//! - shell (ROUTER): requests; `kernel_info` and `shutdown` are answered
//!   here, everything else goes to the evaluator thread in order;
//! - control (ROUTER): `interrupt` sets the runtime's interrupt flag at once,
//!   even while a cell runs; `shutdown` and `kernel_info` as on shell;
//! - iopub (PUB): status, streams, results, published for the evaluator;
//! - stdin (ROUTER): bound as the spec asks (grundy never reads input);
//! - heartbeat (REP): echoes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use bytes::Bytes;
use jupyter_protocol::{
    ConnectionInfo, InterruptReply, JupyterMessage, JupyterMessageContent, ShutdownReply, Status,
};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use zeromq::{PubSocket, RepSocket, RouterSocket, Socket, SocketRecv, SocketSend, ZmqMessage};

use super::info::{kernel_info, message};
use super::wire::Signer;

/// A message for a client, and the socket it goes out on.
pub enum Outgoing {
    /// A reply to a shell request (it carries the requester's identities).
    Shell(JupyterMessage),
    IoPub(JupyterMessage),
}

/// The evaluator's ends: shell requests in, messages out.
pub struct Links {
    pub requests: mpsc::Receiver<JupyterMessage>,
    pub out: UnboundedSender<Outgoing>,
}

/// Binds the sockets and serves them on a new thread; returns once they
/// are bound (or could not be).
pub fn start(info: ConnectionInfo, interrupt: Arc<AtomicBool>) -> Result<Links, String> {
    let (requests_tx, requests) = mpsc::channel();
    let (out, out_rx) = unbounded_channel();
    let (ready_tx, ready) = mpsc::channel();
    std::thread::Builder::new()
        .name("jupyter-io".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => {
                    let _ = ready_tx.send(Err(format!("cannot start the I/O runtime: {e}")));
                    return;
                }
            };
            runtime.block_on(serve(info, interrupt, requests_tx, out_rx, ready_tx));
        })
        .map_err(|e| format!("cannot start the I/O thread: {e}"))?;
    match ready.recv() {
        Ok(Ok(())) => Ok(Links { requests, out }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err("the I/O thread stopped before binding".into()),
    }
}

enum From {
    Shell,
    Control,
}

async fn bind<S: Socket>(mut socket: S, url: &str) -> Result<S, String> {
    socket
        .bind(url)
        .await
        .map_err(|e| format!("cannot bind {url}: {e}"))?;
    Ok(socket)
}

async fn serve(
    info: ConnectionInfo,
    interrupt: Arc<AtomicBool>,
    to_evaluator: mpsc::Sender<JupyterMessage>,
    mut out_rx: UnboundedReceiver<Outgoing>,
    ready: mpsc::Sender<Result<(), String>>,
) {
    let signer = Signer::new(&info.key);
    let sockets = async {
        Ok::<_, String>((
            bind(RouterSocket::new(), &info.shell_url()).await?,
            bind(RouterSocket::new(), &info.control_url()).await?,
            bind(RouterSocket::new(), &info.stdin_url()).await?,
            bind(PubSocket::new(), &info.iopub_url()).await?,
            bind(RepSocket::new(), &info.hb_url()).await?,
        ))
    };
    let (shell, control, _stdin, mut iopub, mut heartbeat) = match sockets.await {
        Ok(s) => s,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let _ = ready.send(Ok(()));

    tokio::spawn(async move {
        while let Ok(ping) = heartbeat.recv().await {
            if heartbeat.send(ping).await.is_err() {
                break;
            }
        }
    });
    // Each receiving half feeds one queue, so that no receive is ever
    // cancelled half way by the select below.
    let (in_tx, mut in_rx) = unbounded_channel::<(From, ZmqMessage)>();
    let (mut shell_send, mut shell_recv) = shell.split();
    let (mut control_send, mut control_recv) = control.split();
    let tx = in_tx.clone();
    tokio::spawn(async move {
        while let Ok(m) = shell_recv.recv().await {
            if tx.send((From::Shell, m)).is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        while let Ok(m) = control_recv.recv().await {
            if in_tx.send((From::Control, m)).is_err() {
                break;
            }
        }
    });

    let frames = |msg: &JupyterMessage| ZmqMessage::try_from(signer.encode(msg)).ok();
    loop {
        tokio::select! {
            Some((from, raw)) = in_rx.recv() => {
                let msg = match signer.decode(raw.into_vec()) {
                    Ok(m) => m,
                    Err(e) => {
                        eprintln!("grundy kernel: dropped a message: {e}");
                        continue;
                    }
                };
                let mut replies = Vec::new();
                let mut published = Vec::new();
                let mut stop = false;
                match &msg.content {
                    JupyterMessageContent::KernelInfoRequest(_) => {
                        published.push(status(&msg, Status::busy()));
                        replies.push(message(kernel_info(), Some(&msg)));
                        published.push(status(&msg, Status::idle()));
                    }
                    JupyterMessageContent::ShutdownRequest(r) => {
                        // Stops a running cell too: the evaluator then finds
                        // its request queue closed and ends.
                        interrupt.store(true, Ordering::SeqCst);
                        let reply = ShutdownReply { restart: r.restart, ..Default::default() };
                        replies.push(message(reply, Some(&msg)));
                        stop = true;
                    }
                    JupyterMessageContent::InterruptRequest(_) => {
                        interrupt.store(true, Ordering::SeqCst);
                        replies.push(message(InterruptReply::new(), Some(&msg)));
                    }
                    _ => match from {
                        From::Shell => {
                            if to_evaluator.send(msg).is_err() {
                                break;
                            }
                        }
                        From::Control => {}
                    },
                }
                for m in &published {
                    publish(&mut iopub, &frames, m).await;
                }
                for m in &replies {
                    if let Some(f) = frames(m) {
                        let sent = match from {
                            From::Shell => shell_send.send(f).await,
                            From::Control => control_send.send(f).await,
                        };
                        if let Err(e) = sent {
                            eprintln!("grundy kernel: cannot reply: {e}");
                        }
                    }
                }
                if stop {
                    // Give the reply a moment to leave before the sockets close.
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    break;
                }
            }
            Some(out) = out_rx.recv() => match out {
                Outgoing::Shell(m) => {
                    if let Some(f) = frames(&m) {
                        if let Err(e) = shell_send.send(f).await {
                            eprintln!("grundy kernel: cannot reply: {e}");
                        }
                    }
                }
                Outgoing::IoPub(m) => publish(&mut iopub, &frames, &m).await,
            },
            else => break,
        }
    }
}

/// A status message (`busy`, `idle`) about a request.
pub fn status(parent: &JupyterMessage, state: Status) -> JupyterMessage {
    message(state, Some(parent))
}

/// Publishes on iopub, with the message type as the topic.
async fn publish(
    iopub: &mut PubSocket,
    frames: &impl Fn(&JupyterMessage) -> Option<ZmqMessage>,
    msg: &JupyterMessage,
) {
    let topic = Bytes::from(format!("kernel.grundy.{}", msg.message_type()));
    let msg = msg.clone().with_zmq_identities(vec![topic]);
    if let Some(f) = frames(&msg) {
        // A PUB socket drops what no one listens to; that is no error.
        let _ = iopub.send(f).await;
    }
}
