//! The four JSON envelopes (first parse level).

use super::error::{result_serde, RpcResult};
use super::json::{quote, Json};
use super::methods::Receipt;
use super::read::{read, Obj, ReadError, ReadErrorKind, ReadResult};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A call from the client to a unary method (`POST /api/<method>`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientRequest {
    /// Echoed by the response, so a reply is matched to its call.
    pub rpc_id: String,
    /// The method called (see [`super::methods`]).
    pub method: String,
    /// The method's payload (`null` when absent).
    #[serde(default)]
    pub payload: Value,
}

/// The host's answer to a [`ClientRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerResponse {
    /// The request's rpcId, echoed.
    pub rpc_id: String,
    /// The method's value, or the error it failed with.
    #[serde(with = "result_serde")]
    pub result: RpcResult<Value>,
}

/// One SSE frame. `method` equals the payload's `type`; `payload` is the frame itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerRequest {
    /// Names the request; a `client-response` answers by it.
    pub rpc_id: String,
    /// The frame type.
    pub method: String,
    /// The frame.
    pub payload: Value,
}

/// The client's answer to a [`ServerRequest`] (a question or an approval).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientResponse {
    /// The rpcId of the request answered.
    pub rpc_id: String,
    /// The answer, or the error the client gives instead.
    #[serde(with = "result_serde")]
    pub result: RpcResult<Value>,
}

/// Any of the four envelopes, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Envelope {
    /// Client to host: a unary call.
    #[serde(rename = "client-request")]
    ClientRequest(ClientRequest),
    /// Host to client: a unary call's answer.
    #[serde(rename = "server-response")]
    ServerResponse(ServerResponse),
    /// Host to client: a stream frame.
    #[serde(rename = "server-request")]
    ServerRequest(ServerRequest),
    /// Client to host: an answer to a stream frame.
    #[serde(rename = "client-response")]
    ClientResponse(ClientResponse),
}

impl Envelope {
    /// Reads any envelope (host side; the client reads through its own readers).
    pub fn parse(text: &str) -> ReadResult<Envelope> {
        serde_json::from_str(text)
            .map_err(|e| ReadError::new(ReadErrorKind::Syntax(e.to_string()), "").context("bad envelope"))
    }
    /// The envelope as JSON text.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self).expect("envelopes always serialize")
    }
}

/// `{"k":v,…}` from member values that are JSON text already, a `None` member left out: the
/// one writer of the client's request payloads (no serde impl per payload, no reparse). Keys
/// are plain identifiers.
pub fn object_text(members: &[(&str, Option<&str>)]) -> String {
    let mut text = String::from("{");
    for (key, value) in members {
        let Some(value) = value else { continue };
        if text.len() > 1 {
            text.push(',');
        }
        text.push('"');
        text.push_str(key);
        text.push_str("\":");
        text.push_str(value);
    }
    text.push('}');
    text
}

/// A `client-request` envelope's text, written without a `Value` tree.
pub fn client_request_text(rpc_id: &str, method: &str, payload: &str) -> String {
    format!(r#"{{"type":"client-request","rpcId":{},"method":{},"payload":{}}}"#, quote(rpc_id), quote(method), payload)
}

/// A `client-response` envelope's text (answering the server request `rpc_id`).
pub fn client_response_text(rpc_id: &str, result: &RpcResult<Json>) -> String {
    format!(r#"{{"type":"client-response","rpcId":{},"result":{}}}"#, quote(rpc_id), super::error::result_text(result))
}

/// A `server-response` envelope's text, the value written as it is (host side): never rebuilt
/// as a tree, so a history page carries any event the store holds.
pub fn server_response_text(rpc_id: &str, result: &RpcResult<Json>) -> String {
    format!(r#"{{"type":"server-response","rpcId":{},"result":{}}}"#, quote(rpc_id), super::error::result_text(result))
}

/// How the body of a unary response is framed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseForm {
    /// A `server-response` envelope that must echo this `rpcId`.
    Envelope {
        /// The rpcId of the request answered.
        rpc_id: String,
    },
    /// `POST /api/respond`: the origin answers the receipt itself, with no envelope around it.
    BareReceipt,
    /// An [`Envelope`](ResponseForm::Envelope), checked as one, whose value is its `result`
    /// object as the host wrote it. Why: a call of a method the package does not wrap hands
    /// the host's own error codes through, where [`ErrorCode`](super::error::ErrorCode) is a
    /// closed set.
    Result {
        /// The rpcId of the request answered.
        rpc_id: String,
    },
}

/// Reads a unary response body in its form. Any failure is a transport error for the caller.
pub fn parse_unary_response(body: &str, form: &ResponseForm) -> ReadResult<RpcResult<Json>> {
    match form {
        ResponseForm::Envelope { rpc_id } => parse_server_response(body, rpc_id),
        ResponseForm::BareReceipt => parse_bare_receipt(body).map(|r| Ok(Json::from_serialize(&r))),
        // Read twice (a small body): the check, then the member as it is.
        ResponseForm::Result { rpc_id } => parse_server_response(body, rpc_id)
            .and_then(|_| Obj::parse(body))
            .map(|o| Ok(o.raw("result").map(Json::from_raw).unwrap_or_default())),
    }
}

/// A bare `/api/respond` receipt: `{accepted:true}` or `{accepted:false, reason}`, nothing
/// else (an accepted receipt with a reason, or a refusal without one, is not a receipt).
pub fn parse_bare_receipt(body: &str) -> ReadResult<Receipt> {
    let receipt = read::<Receipt>(body).map_err(|e| e.context("not a receipt"))?;
    if receipt.accepted == receipt.reason.is_some() {
        let why = if receipt.accepted { "`accepted` true with a reason" } else { "`accepted` false without a reason" };
        return Err(ReadError::invalid(why).context("not a receipt"));
    }
    Ok(receipt)
}

/// Reads a unary response body: envelope `type`, the `rpcId` echo and the result object are
/// checked; the value stays raw text. Any failure is a transport error for the caller.
pub fn parse_server_response(body: &str, expect_rpc_id: &str) -> ReadResult<RpcResult<Json>> {
    let bad = |e: ReadError| e.context("bad envelope");
    let o = Obj::parse(body).map_err(bad)?;
    if o.str_ref("type").map_err(bad)? != "server-response" {
        return Err(ReadError::invalid("expected a server-response envelope"));
    }
    let rpc_id = o.str_ref("rpcId").map_err(bad)?;
    if rpc_id != expect_rpc_id {
        return Err(ReadError::invalid(format!("rpcId mismatch: sent `{expect_rpc_id}`, got `{rpc_id}`")));
    }
    let result = o.raw("result").ok_or_else(|| bad(ReadError::missing("result")))?;
    super::error::result_from_text(result.get())
}
