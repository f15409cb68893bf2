//! Helpers for the customer side: a [`Shopper`] (an HTTP client with its own cookie jar that
//! fills in forms like a browser would), and a [`Receiver`] that stands in for a partner's
//! order-confirmation callback URL and records what reaches it.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;

use presspack::domain::keys;
use presspack::domain::webhooks::signature;

use crate::customers::{add_to_cart, local};
use crate::helpers::TestApp;

/// A page as the shopper got it.
pub struct Page {
    pub status: u16,
    /// Where the request ended up after redirects.
    pub path: String,
    pub body: String,
}

impl Page {
    /// The drop-in's "continue with this pack" form: its action and the pack's token.
    pub fn continue_form(&self) -> Option<(String, String)> {
        let marker = "method=\"post\" action=\"/dropins/";
        let start = self.body.find(marker)? + marker.len() - "/dropins/".len();
        let end = self.body[start..].find('"')?;
        Some((
            self.body[start..start + end].to_owned(),
            self.hidden("token")?,
        ))
    }

    /// The approval boxes of a checkout page's proofs, as ticking all of them sends them:
    /// (field, design hash) pairs.
    pub fn approvals(&self) -> Vec<(String, String)> {
        let marker = "name=\"approve-";
        self.body
            .match_indices(marker)
            .filter_map(|(at, _)| {
                let rest = &self.body[at + "name=\"".len()..];
                let (name, rest) = rest.split_once('"')?;
                let rest = rest.strip_prefix(" value=\"")?;
                let (value, _) = rest.split_once('"')?;
                Some((name.to_owned(), value.to_owned()))
            })
            .collect()
    }

    /// The value of the first hidden `name` input, such as the CSRF token.
    pub fn hidden(&self, name: &str) -> Option<String> {
        let marker = format!("name=\"{name}\" value=\"");
        let start = self.body.find(&marker)? + marker.len();
        let end = self.body[start..].find('"')?;
        Some(self.body[start..start + end].to_owned())
    }
}

#[derive(Clone)]
pub struct Shopper {
    pub client: reqwest::Client,
    pub address: String,
    jar: Arc<reqwest::cookie::Jar>,
}

impl Shopper {
    pub fn new(app: &TestApp) -> Shopper {
        Shopper::with_headers(app, reqwest::header::HeaderMap::new())
    }

    /// A shopper whose requests come through a proxy that says they are from `address`
    /// (`X-Forwarded-For`; the app must trust 127.0.0.1 as a proxy).
    pub fn from_address(app: &TestApp, address: &str) -> Shopper {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("x-forwarded-for", address.parse().unwrap());
        Shopper::with_headers(app, headers)
    }

    fn with_headers(app: &TestApp, headers: reqwest::header::HeaderMap) -> Shopper {
        let jar = Arc::new(reqwest::cookie::Jar::default());
        Shopper {
            client: presspack::infra::fetch::http_client_builder()
                .cookie_provider(Arc::clone(&jar))
                .default_headers(headers)
                .build()
                .unwrap(),
            address: app.address.clone(),
            jar,
        }
    }

    /// The same browser (its cookies) talking to a server at `address` (another process on
    /// the same store): cookies are kept per host, whatever the port.
    pub fn at(&self, address: &str) -> Shopper {
        Shopper {
            address: format!("http://{address}"),
            ..self.clone()
        }
    }

    /// The value of one of the shopper's cookies for the app.
    pub fn cookie(&self, name: &str) -> Option<String> {
        let url = self.address.parse().unwrap();
        let cookies = reqwest::cookie::CookieStore::cookies(&*self.jar, &url)?;
        cookies
            .to_str()
            .ok()?
            .split("; ")
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .map(str::to_owned)
    }

    /// Gives the shopper's browser a cookie for the app (one copied from another browser).
    pub fn set_cookie(&self, name: &str, value: &str) {
        let url = self.address.parse().unwrap();
        self.jar
            .add_cookie_str(&format!("{name}={value}; Path=/"), &url);
    }

    /// Opens a drop-in as a signed-in customer does: the link, then the button that
    /// continues with the pack (takes it, or puts it in the cart) if the page offers one.
    pub async fn open_drop_in(&self, path: &str) -> Page {
        let page = self.get(path).await;
        match page.continue_form() {
            Some((action, token)) => self.post(&page, &action, &[("token", &token)]).await,
            None => page,
        }
    }

    fn url(&self, path_or_url: &str) -> String {
        if path_or_url.starts_with("http") {
            path_or_url.to_owned()
        } else {
            format!("{}{path_or_url}", self.address)
        }
    }

    async fn page(&self, response: reqwest::Response) -> Page {
        Page {
            status: response.status().as_u16(),
            path: response.url().path().to_owned(),
            body: response.text().await.unwrap(),
        }
    }

    pub async fn get(&self, path_or_url: &str) -> Page {
        let response = self.client.get(self.url(path_or_url)).send().await.unwrap();
        self.page(response).await
    }

    /// Posts a form exactly as given (no CSRF token added).
    pub async fn post_raw(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let response = self
            .client
            .post(self.url(path))
            .form(fields)
            .send()
            .await
            .unwrap();
        self.page(response).await
    }

    /// Posts a form with the CSRF token of `from` (a page this shopper was shown).
    pub async fn post(&self, from: &Page, path: &str, fields: &[(&str, &str)]) -> Page {
        let csrf = from
            .hidden("csrf")
            .expect("the page has a form with a CSRF token");
        let mut all = vec![("csrf", csrf.as_str())];
        all.extend_from_slice(fields);
        self.post_raw(path, &all).await
    }

    /// Creates an account (from the sign-up page) and is signed in.
    pub async fn sign_up(&self, email: &str) -> Page {
        let form = self.get("/account/signup").await;
        let page = self
            .post(
                &form,
                "/account/signup",
                &[
                    ("name", "Ann Example"),
                    ("email", email),
                    ("password", "correct horse battery"),
                ],
            )
            .await;
        assert_eq!(page.status, 200, "{}", page.body);
        page
    }

    /// Puts each pack in the cart (addToCart, then its cart drop-in) and checks out; the
    /// order number.
    pub async fn order(&self, app: &TestApp, packs: &[&str]) -> String {
        for pack in packs {
            let body = add_to_cart(app, pack, "1").await;
            self.open_drop_in(&local(&body["dropIns"]["cart"])).await;
        }
        let confirmation = self.check_out().await;
        assert!(
            confirmation.path.ends_with("/confirmation"),
            "{}",
            confirmation.body
        );
        confirmation.path.split('/').nth(2).unwrap().to_owned()
    }

    /// Checks out with a delivery address, every proof approved; the confirmation page (or
    /// the refusal).
    pub async fn check_out(&self) -> Page {
        let form = self.get("/checkout").await;
        self.place_order(&form, &form.approvals()).await
    }

    /// Sends the checkout form shown on `form` (its hidden fields) with an address and
    /// `approvals` (field, design) ticked.
    pub async fn place_order(&self, form: &Page, approvals: &[(String, String)]) -> Page {
        let checkout = form.hidden("checkout").unwrap_or_default();
        let cart = form.hidden("cart").unwrap_or_default();
        let mut fields = vec![("checkout", checkout.as_str()), ("cart", cart.as_str())];
        fields.extend_from_slice(&ADDRESS);
        fields.extend(approvals.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        self.post(form, "/checkout", &fields).await
    }
}

/// The delivery address the tests' customers order to.
pub(crate) const ADDRESS: [(&str, &str); 5] = [
    ("name", "Ann Example"),
    ("line1", "1 Print Street"),
    ("city", "London"),
    ("postcode", "E1 6AN"),
    ("country", "United Kingdom"),
];

/// A request that reached the receiver.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: String,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// A form-encoded field of the body.
    pub fn form(&self, name: &str) -> Option<String> {
        form_urlencoded::parse(self.body.as_bytes())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.into_owned())
    }
}

#[derive(Default)]
struct Recorded {
    requests: Vec<Received>,
    /// Answer this many requests with 500 before accepting.
    fail_first: usize,
}

/// A partner's callback endpoint on a free port: `{url}/browser` for the page's call and
/// `{url}/webhook` for the signed webhook.
pub struct Receiver {
    pub url: String,
    recorded: Arc<Mutex<Recorded>>,
}

async fn record(
    State(recorded): State<Arc<Mutex<Recorded>>>,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: String,
) -> StatusCode {
    let mut recorded = recorded.lock().unwrap();
    let mut headers = headers;
    headers.insert("x-test-path", uri.path().parse().unwrap());
    recorded.requests.push(Received { headers, body });
    if recorded.requests.len() <= recorded.fail_first {
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        StatusCode::NO_CONTENT
    }
}

impl Receiver {
    /// Makes `{url}/webhook` the callback URL of `app`'s key.
    pub async fn take_callbacks_of(&self, app: &TestApp) {
        presspack::domain::keys::set_callback(
            app.store.as_ref(),
            &app.key.consumer_key,
            Some(format!("{}/webhook", self.url)),
        )
        .await
        .unwrap();
    }

    pub async fn start(fail_first: usize) -> Receiver {
        let recorded = Arc::new(Mutex::new(Recorded {
            requests: Vec::new(),
            fail_first,
        }));
        let router = Router::new()
            .fallback(record)
            .with_state(Arc::clone(&recorded));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        Receiver { url, recorded }
    }

    /// Requests to `path`, in order of arrival.
    pub fn received(&self, path: &str) -> Vec<Received> {
        self.recorded
            .lock()
            .unwrap()
            .requests
            .iter()
            .filter(|r| r.header("x-test-path") == path)
            .cloned()
            .collect()
    }

    /// Waits (up to `seconds`) until `path` has had `count` requests.
    /// The events of the first `count` webhooks to reach `/webhook` (within a minute), each
    /// checked against the webhook secret of `app`'s test key.
    pub async fn signed_webhooks(&self, app: &TestApp, count: usize) -> Vec<Value> {
        let sent = self.wait_for("/webhook", count, 60).await;
        let secret = keys::find(app.store.as_ref(), &app.key.consumer_key)
            .await
            .unwrap()
            .unwrap()
            .webhook_secret
            .unwrap();
        sent.iter()
            .map(|message| {
                let timestamp: i64 = message.header("webhook-timestamp").parse().unwrap();
                let id = message.header("webhook-id");
                assert_eq!(
                    message.header("webhook-signature"),
                    signature(&secret, id, timestamp, &message.body).unwrap()
                );
                message.json()
            })
            .collect()
    }

    pub async fn wait_for(&self, path: &str, count: usize, seconds: u64) -> Vec<Received> {
        for _ in 0..seconds * 10 {
            let got = self.received(path);
            if got.len() >= count {
                return got;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!(
            "{path}: expected {count} requests within {seconds} s, got {:?}",
            self.received(path)
        );
    }
}
