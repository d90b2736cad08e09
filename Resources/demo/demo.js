/*
 * The demo journey: asks the host what it can do, captures a document and a selfie
 * through the bridge, shows what came back, and reports the outcome to the host with a
 * `journey.complete` event.
 *
 * Add `?autostart=1` to the URL to run every step without clicks (unattended runs:
 * gbgbridge-shell adds it when it answers captures from files or waits for an exit
 * event). In that mode a step that does not succeed is recorded and skipped, so the
 * journey always reaches `journey.complete`.
 */
(function () {
  "use strict";

  var bridge = window.GBGBridgeClient;
  var params = new URLSearchParams(window.location.search);
  var autostart = params.has("autostart") && params.get("autostart") !== "0";
  var QUERY_TIMEOUT_MS = 5000;
  var AUTO_ADVANCE_MS = 350;

  var steps = {
    document: {
      card: document.getElementById("card-document"),
      action: "camera.document.capture",
      capability: "camera.document",
      title: "Document",
      requestData: { side: "front" },
      outcome: null
    },
    selfie: {
      card: document.getElementById("card-selfie"),
      action: "camera.selfie.capture",
      capability: "camera.selfie",
      title: "Selfie",
      requestData: {},
      outcome: null
    }
  };
  var order = ["document", "selfie"];
  var host = { environment: null, hostVersion: null, capabilities: null };
  var finished = false;

  // ---- small view helpers -------------------------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function part(card, role) {
    return card.querySelector('[data-role="' + role + '"]');
  }

  function setChip(chip, text, tone) {
    chip.textContent = text;
    if (tone) chip.setAttribute("data-tone", tone);
    else chip.removeAttribute("data-tone");
  }

  function showNotice(notice, tone, title, body) {
    notice.replaceChildren(el("strong", null, title), document.createTextNode(body));
    notice.setAttribute("data-tone", tone);
    notice.hidden = false;
  }

  function setCurrentStep(name) {
    var names = ["host", "document", "selfie", "finish"];
    var reached = false;
    names.forEach(function (stepName) {
      var item = document.querySelector('#stepper li[data-step="' + stepName + '"]');
      var card = document.querySelector('.steps .card[data-step="' + stepName + '"]');
      var state;
      if (stepName === name) {
        state = "current";
        reached = true;
      } else if (!reached) {
        var outcome = steps[stepName] && steps[stepName].outcome;
        state = outcome && outcome.status !== "success" ? "problem" : "done";
      } else {
        state = "idle";
      }
      item.setAttribute("data-state", state);
      card.setAttribute("data-state", state === "current" ? "current" : state === "idle" ? "idle" : "done");
    });
  }

  function formatBytes(count) {
    if (count < 1024) return count + " B";
    if (count < 1024 * 1024) return (count / 1024).toFixed(1) + " KiB";
    return (count / (1024 * 1024)).toFixed(2) + " MiB";
  }

  function base64ByteCount(text) {
    if (typeof text !== "string" || text.length === 0) return 0;
    var padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
    return Math.floor((text.length * 3) / 4) - padding;
  }

  // ---- activity panel -----------------------------------------------------

  var activityList = document.getElementById("activity-list");
  var activityCount = 0;

  function logActivity(direction, action, detail) {
    activityCount += 1;
    document.getElementById("activity-count").textContent =
      activityCount + (activityCount === 1 ? " message" : " messages");
    var item = el("li", direction === "out" ? "out" : "in");
    item.appendChild(el("span", "dir", direction === "out" ? "→" : "←"));
    var text = el("span", null, action);
    if (detail) {
      text.appendChild(document.createElement("br"));
      text.appendChild(el("span", "detail", detail));
    }
    item.appendChild(text);
    activityList.appendChild(item);
    while (activityList.children.length > 40) activityList.removeChild(activityList.firstChild);
    activityList.scrollTop = activityList.scrollHeight;
  }

  function request(action, data, options) {
    logActivity("out", action, "request");
    var started = performance.now();
    return bridge.request(action, data, options).then(
      function (payload) {
        var elapsed = Math.round(performance.now() - started);
        var detail = payload.status + (payload.error ? " · " + payload.error.code : "") + " · " + elapsed + " ms";
        logActivity("in", action, detail);
        return payload;
      },
      function (error) {
        logActivity("in", action, (error.code || "ERROR") + " · " + error.message);
        throw error;
      }
    );
  }

  function sendEvent(action, data) {
    bridge.send(action, data);
    logActivity("out", action, "event");
  }

  // ---- host events ----------------------------------------------------------

  var pill = document.getElementById("host-pill");

  function setPill(state, text) {
    pill.setAttribute("data-state", state);
    pill.textContent = text;
  }

  bridge.on("*", function (data, message) {
    logActivity("in", message.payload.action, "event");
  });
  bridge.on("host.ready", function () {
    setPill("connected", "Host connected");
  });
  bridge.on("host.background", function () {
    setPill("background", "Host window in background");
  });
  bridge.on("host.foreground", function () {
    setPill("connected", "Host connected");
    if (host.capabilities) queryCapabilities();
  });
  bridge.on("journey.cancel", function (data) {
    var notice = document.getElementById("host-notice");
    showNotice(notice, "warn", "The host is closing the journey.",
      data && data.reason ? "Reason: " + data.reason : "Nothing more will be sent.");
  });

  // ---- step 1: capabilities -------------------------------------------------

  function permissionBadge(state) {
    if (!state) return el("span", "badge none", "—");
    var labels = {
      granted: "Granted",
      denied: "Denied",
      notDetermined: "Not asked yet",
      restricted: "Restricted",
      notApplicable: "Not applicable"
    };
    return el("span", "badge " + state, labels[state] || state);
  }

  function renderCapabilities() {
    var table = document.getElementById("caps-table");
    var body = table.querySelector("tbody");
    body.replaceChildren();
    var ids = Object.keys(host.capabilities).sort();
    ids.forEach(function (id) {
      var info = host.capabilities[id] || {};
      var row = el("tr");
      var name = el("td");
      name.appendChild(el("code", null, id));
      row.appendChild(name);
      var supported = el("td");
      supported.appendChild(el("span", "badge " + (info.supported ? "yes" : "no"), info.supported ? "Yes" : "No"));
      row.appendChild(supported);
      row.appendChild(el("td", null, info.version || "—"));
      var permission = el("td");
      permission.appendChild(permissionBadge(info.permissionState));
      row.appendChild(permission);
      body.appendChild(row);
    });
    table.hidden = ids.length === 0;
    var summary = document.getElementById("host-summary");
    summary.textContent = "Running in a " + (host.environment || "unknown") + " host, version " +
      (host.hostVersion || "unknown") + ". " +
      (ids.length === 0 ? "It declares no capabilities." : "It declares " + ids.length +
        (ids.length === 1 ? " capability:" : " capabilities:"));
  }

  function queryCapabilities() {
    var chip = document.getElementById("host-status");
    var notice = document.getElementById("host-notice");
    return request("capability.query", {}, { timeout: QUERY_TIMEOUT_MS }).then(
      function (payload) {
        if (payload.status !== "success" || !payload.data || typeof payload.data.capabilities !== "object") {
          host.capabilities = {};
          setChip(chip, "No answer", "warn");
          showNotice(notice, "warn", "The host did not describe its capabilities.",
            "Status: " + payload.status + (payload.error ? " (" + payload.error.code + ")" : "") +
            ". The journey will try each step anyway.");
          return;
        }
        host.environment = payload.data.environment || null;
        host.hostVersion = payload.data.hostVersion || null;
        host.capabilities = payload.data.capabilities;
        setChip(chip, "Connected", "good");
        setPill("connected", "Host connected");
        renderCapabilities();
      },
      function (error) {
        host.capabilities = {};
        setChip(chip, "No answer", "bad");
        showNotice(notice, "bad", "The host did not answer the capability query.",
          error.message + ". The journey will try each step anyway.");
      }
    );
  }

  // ---- steps 2 and 3: captures -----------------------------------------------

  function isDeclaredUnsupported(step) {
    if (!host.capabilities) return false;
    var info = host.capabilities[step.capability];
    return !info || info.supported === false;
  }

  function enterStep(name) {
    setCurrentStep(name);
    var step = steps[name];
    var capture = part(step.card, "capture");
    var skip = part(step.card, "skip");
    if (isDeclaredUnsupported(step)) {
      setChip(part(step.card, "status"), "Not available", "warn");
      showNotice(part(step.card, "notice"), "warn", "This host cannot do " + step.title.toLowerCase() + " capture.",
        "It does not list " + step.capability + " as supported, so this step can be skipped.");
      capture.textContent = "Try anyway";
      capture.disabled = false;
      skip.hidden = false;
      skip.disabled = false;
      if (autostart) window.setTimeout(function () { recordAndContinue(name, { status: "unsupported", code: "NOT_DECLARED" }); }, AUTO_ADVANCE_MS);
      return;
    }
    setChip(part(step.card, "status"), "Ready", null);
    capture.disabled = false;
    skip.hidden = true;
    if (autostart) runCapture(name);
  }

  function describeProblem(step, payload) {
    var error = payload.error || {};
    switch (payload.status) {
      case "cancelled":
        return { tone: "warn", chip: "Cancelled", title: "Capture cancelled.",
          body: "No photo was taken. You can try again or skip this step.", retry: true };
      case "unsupported":
        return { tone: "warn", chip: "Not available", title: "This host cannot do " + step.title.toLowerCase() + " capture.",
          body: (error.message || "The host answered unsupported") + (error.code ? " (" + error.code + ")." : "."), retry: false };
      case "acknowledged":
        return { tone: "warn", chip: "No image", title: "The host accepted the request but sent no image.",
          body: "This journey expects the image in the response.", retry: true };
      case "error":
        if (error.code === "BUSY") {
          return { tone: "warn", chip: "Busy", title: "Another capture is still open.",
            body: "Finish or close the capture window that is already open, then try again.", retry: true };
        }
        return { tone: "bad", chip: "Failed", title: "The capture failed.",
          body: (error.message || "No details were given") + (error.code ? " (" + error.code + ")." : "."),
          retry: error.recoverable !== false };
      default:
        return { tone: "bad", chip: "Unexpected", title: "Unexpected answer from the host.",
          body: "Status: " + payload.status, retry: true };
    }
  }

  function renderImage(step, data) {
    var figure = part(step.card, "result");
    var image = part(step.card, "image");
    var mimeType = data.mimeType || "image/png";
    image.src = "data:" + mimeType + ";base64," + data.imageBase64;
    var facts = el("dl");
    function fact(label, value) {
      facts.appendChild(el("dt", null, label));
      facts.appendChild(el("dd", null, value));
    }
    fact("Size", data.imageWidth + " × " + data.imageHeight + " px");
    fact("Type", mimeType);
    fact("Image data", formatBytes(base64ByteCount(data.imageBase64)));
    if ("encryptedBlobBase64" in data) fact("Encrypted package", formatBytes(base64ByteCount(data.encryptedBlobBase64)));
    if ("unencryptedBlobBase64" in data) fact("Unencrypted package", formatBytes(base64ByteCount(data.unencryptedBlobBase64)));
    part(step.card, "facts").replaceChildren(facts);
    figure.hidden = false;
  }

  function successOutcome(data) {
    var outcome = {
      status: "success",
      width: data.imageWidth,
      height: data.imageHeight,
      mimeType: data.mimeType,
      imageBytes: base64ByteCount(data.imageBase64)
    };
    if ("encryptedBlobBase64" in data) outcome.encryptedBlobBytes = base64ByteCount(data.encryptedBlobBase64);
    if ("unencryptedBlobBase64" in data) outcome.unencryptedBlobBytes = base64ByteCount(data.unencryptedBlobBase64);
    return outcome;
  }

  function runCapture(name) {
    var step = steps[name];
    var capture = part(step.card, "capture");
    var skip = part(step.card, "skip");
    var notice = part(step.card, "notice");
    var chip = part(step.card, "status");
    capture.disabled = true;
    skip.disabled = true;
    notice.hidden = true;
    setChip(chip, "Waiting for the camera…", "busy");

    request(step.action, step.requestData).then(
      function (payload) {
        if (payload.status === "success" && payload.data && typeof payload.data.imageBase64 === "string") {
          renderImage(step, payload.data);
          setChip(chip, "Captured", "good");
          capture.textContent = "Retake";
          capture.disabled = false;
          recordAndContinue(name, successOutcome(payload.data));
          return;
        }
        var problem = describeProblem(step, payload);
        var outcome = { status: payload.status };
        if (payload.error) {
          outcome.code = payload.error.code;
          outcome.recoverable = payload.error.recoverable;
        }
        offerChoices(name, problem, outcome);
      },
      function (error) {
        offerChoices(name, {
          tone: "bad", chip: "No answer", title: "The host did not answer.",
          body: error.message + ".", retry: true
        }, { status: "error", code: error.code || "CLIENT_ERROR" });
      }
    );
  }

  function offerChoices(name, problem, outcome) {
    var step = steps[name];
    var capture = part(step.card, "capture");
    var skip = part(step.card, "skip");
    setChip(part(step.card, "status"), problem.chip, problem.tone);
    showNotice(part(step.card, "notice"), problem.tone, problem.title, problem.body);
    capture.textContent = "Try again";
    capture.hidden = !problem.retry;
    capture.disabled = false;
    skip.hidden = false;
    skip.disabled = false;
    step.pendingOutcome = outcome;
    if (autostart) window.setTimeout(function () { recordAndContinue(name, outcome); }, AUTO_ADVANCE_MS);
  }

  function recordAndContinue(name, outcome) {
    var step = steps[name];
    if (finished) return;
    var firstTime = step.outcome === null;
    step.outcome = outcome;
    step.pendingOutcome = null;
    part(step.card, "skip").hidden = true;
    if (outcome.status !== "success") part(step.card, "capture").disabled = true;
    if (!firstTime) {
      renderSummary();
      return;
    }
    var next = order[order.indexOf(name) + 1];
    if (next) enterStep(next);
    else enterFinish();
  }

  order.forEach(function (name) {
    var step = steps[name];
    part(step.card, "capture").addEventListener("click", function () { runCapture(name); });
    part(step.card, "skip").addEventListener("click", function () {
      recordAndContinue(name, step.pendingOutcome || { status: "skipped" });
    });
  });

  // ---- step 4: finish ---------------------------------------------------------

  function journeyResult() {
    var result = {
      outcome: order.every(function (name) { return steps[name].outcome && steps[name].outcome.status === "success"; })
        ? "completed" : "incomplete",
      environment: host.environment,
      hostVersion: host.hostVersion,
      steps: {}
    };
    order.forEach(function (name) { result.steps[name] = steps[name].outcome || { status: "skipped" }; });
    return result;
  }

  function renderSummary() {
    var list = document.getElementById("finish-list");
    list.replaceChildren();
    order.forEach(function (name) {
      var outcome = steps[name].outcome || { status: "skipped" };
      var item = el("li");
      item.appendChild(el("span", null, steps[name].title));
      var text = outcome.status === "success"
        ? outcome.width + " × " + outcome.height + " " + (outcome.mimeType || "")
        : outcome.status + (outcome.code ? " (" + outcome.code + ")" : "");
      item.appendChild(el("strong", null, text));
      list.appendChild(item);
    });
    list.hidden = false;
    var result = journeyResult();
    document.getElementById("finish-summary").textContent = result.outcome === "completed"
      ? "Both captures are ready."
      : "Some steps did not complete. The host will be told which.";
  }

  function enterFinish() {
    setCurrentStep("finish");
    renderSummary();
    var button = document.getElementById("finish-button");
    button.disabled = false;
    setChip(document.getElementById("finish-status"), "Ready", null);
    if (autostart) window.setTimeout(finish, AUTO_ADVANCE_MS);
  }

  function finish() {
    if (finished) return;
    var result = journeyResult();
    var chip = document.getElementById("finish-status");
    try {
      sendEvent("journey.complete", result);
    } catch (error) {
      setChip(chip, "Not sent", "bad");
      document.getElementById("finish-summary").textContent = "Could not reach the host: " + error.message;
      return;
    }
    finished = true;
    order.forEach(function (name) {
      part(steps[name].card, "capture").hidden = true;
      part(steps[name].card, "skip").hidden = true;
    });
    document.getElementById("finish-button").hidden = true;
    var completed = result.outcome === "completed";
    setChip(chip, completed ? "Completed" : "Sent with gaps", completed ? "good" : "warn");
    document.getElementById("finish-summary").textContent = completed
      ? "The result has been sent to the host."
      : "The result, including the steps that did not complete, has been sent to the host.";
    var verdict = document.getElementById("finish-verdict");
    verdict.textContent = completed ? "Journey complete" : "Journey finished with missing steps";
    verdict.setAttribute("data-tone", completed ? "good" : "warn");
    verdict.hidden = false;
    document.getElementById("card-finish").scrollIntoView({ block: "nearest" });
    var stepperItem = document.querySelector('#stepper li[data-step="finish"]');
    stepperItem.setAttribute("data-state", "done");
    document.getElementById("card-finish").setAttribute("data-state", "done");
  }

  document.getElementById("finish-button").addEventListener("click", finish);

  // ---- start ------------------------------------------------------------------

  var startButton = document.getElementById("start-button");
  startButton.addEventListener("click", function () {
    startButton.hidden = true;
    enterStep("document");
  });

  setCurrentStep("host");

  if (!bridge.isAvailable()) {
    setPill("missing", "No host");
    setChip(document.getElementById("host-status"), "No host", "bad");
    document.getElementById("host-summary").textContent = "This page is not running inside a GBG Bridge host.";
    showNotice(document.getElementById("host-notice"), "bad", "Open this journey in a host.",
      "Run it with gbgbridge-shell (or another GBG Bridge host) to reach the camera.");
    return;
  }

  queryCapabilities().then(function () {
    startButton.disabled = false;
    if (autostart) {
      startButton.hidden = true;
      enterStep("document");
    }
  });
})();
