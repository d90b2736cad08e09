/*
 * The demo journey: asks the host what it can do, captures a document and a selfie
 * through the bridge, reads the document's chip when the host offers `nfc.read`, shows
 * what came back, and reports the outcome to the host with a `journey.complete` event.
 *
 * Add `?autostart=1` to the URL to run every step without clicks (unattended runs:
 * gbgbridge-shell adds it when it answers captures from files or waits for an exit
 * event). In that mode a step that does not succeed is recorded and skipped, so the
 * journey always reaches `journey.complete`.
 *
 * The chip opens with the key the host read from the document photo's machine-readable zone
 * (`nfc.read` with `keyFrom: "documentCapture"`) when the last document capture answered
 * `mrz.status` "read"; "Type the details instead" shows the form. The form is the fallback: it
 * is shown, with a notice saying why, when the photo's zone was not read or the host refuses the
 * key from the photo (MRZ_NOT_READ, ACCESS_DENIED). A key in the URL (`documentNumber`,
 * `dateOfBirth`, `dateOfExpiry`, or `can`) fills the form; an unattended run uses the photo's
 * key, else the URL's, else skips the chip (NO_KEY).
 *
 * The page speaks the person's language: the first of navigator.languages that messages.js has
 * texts for (German, French, Spanish), else English. `journey.complete` names it in `language`.
 */
(function () {
  "use strict";

  var bridge = window.GBGBridgeClient;
  var params = new URLSearchParams(window.location.search);
  var autostart = params.has("autostart") && params.get("autostart") !== "0";
  var QUERY_TIMEOUT_MS = 5000;
  var AUTO_ADVANCE_MS = 350;

  var chipForm = document.getElementById("chip-key");

  // ---- language -------------------------------------------------------------

  var messages = window.GBGBridgeDemoMessages;
  var texts = messages.texts(messages.pick(
    navigator.languages && navigator.languages.length ? Array.from(navigator.languages) : [navigator.language]));
  var language = texts.language;
  var t = texts.text;

  /** Puts the page's fixed texts (data-i18n, data-i18n-alt, data-i18n-placeholder) in the page's language. */
  function localizePage() {
    document.documentElement.lang = language;
    document.title = t("page.title");
    document.querySelectorAll("[data-i18n]").forEach(function (node) {
      node.textContent = t(node.getAttribute("data-i18n"));
    });
    ["alt", "placeholder"].forEach(function (attribute) {
      document.querySelectorAll("[data-i18n-" + attribute + "]").forEach(function (node) {
        node.setAttribute(attribute, t(node.getAttribute("data-i18n-" + attribute)));
      });
    });
  }

  localizePage();

  /*
   * Each step says how it asks (buildRequest, null when its input is not complete), what answer
   * it takes (accepts), how it shows one and what it records (showResult), how it explains the
   * rest (describeProblem), and whether its inputs may be edited (setEditable). A capture step
   * may add facts (moreFacts) and what it records (moreOutcome) for what its answer carries.
   */
  function captureStep(step) {
    step.outcome = null;
    step.busyText = t("capture.busy");
    step.againText = t("capture.again");
    step.buildRequest = function () { return step.requestData; };
    step.accepts = function (data) { return typeof data.imageBase64 === "string"; };
    step.showResult = function (data) {
      renderImage(step, data);
      setChip(part(step.card, "status"), t("status.captured"), "good");
      var outcome = successOutcome(data);
      if (step.moreOutcome) step.moreOutcome(data, outcome);
      return outcome;
    };
    step.describeProblem = function (payload, error) { return describeCaptureProblem(step, payload, error); };
    step.setEditable = function () {};
    return step;
  }

  var steps = {
    document: captureStep({
      name: "document",
      card: document.getElementById("card-document"),
      action: "camera.document.capture",
      capability: "camera.document",
      title: t("step.document"),
      requestData: { side: "front" },
      moreFacts: zoneFacts,
      moreOutcome: noteDocumentZone
    }),
    selfie: captureStep({
      name: "selfie",
      card: document.getElementById("card-selfie"),
      action: "camera.selfie.capture",
      capability: "camera.selfie",
      title: t("step.selfie"),
      requestData: {}
    }),
    chip: {
      card: document.getElementById("card-chip"),
      action: "nfc.read",
      capability: "nfc.read",
      title: t("step.chip"),
      optional: true,
      outcome: null,
      // Its button submits the form, so Enter in a field reads the chip too.
      form: chipForm,
      busyText: t("chip.busy"),
      againText: t("chip.again"),
      enter: enterChipStep,
      buildRequest: chipRequest,
      accepts: function (data) { return data.chipRead === true; },
      showResult: function (data) {
        renderChipResult(data);
        return chipOutcome(data);
      },
      describeProblem: describeChipProblem,
      setEditable: function (editable) {
        chipFields.disabled = !editable;
        keySwitch.disabled = !editable;
      }
    }
  };
  // The chip step joins the journey only when the host offers nfc.read.
  var order = ["document", "selfie"];
  var chipFields = part(steps.chip.card, "fields");
  var keySource = part(steps.chip.card, "key-source");
  var keySwitch = part(steps.chip.card, "key-switch");
  var CHIP_KEY_FIELDS = ["documentNumber", "dateOfBirth", "dateOfExpiry", "can"];
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
    var names = ["host"].concat(order, ["finish"]);
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

  /** The words for a value from a fixed list (a status, a verdict), or the value itself when it is not on the list. */
  function wordFor(prefix, value, known) {
    return known.indexOf(value) !== -1 ? t(prefix + value) : value;
  }

  function formatBytes(count) {
    function decimal(value, digits) { return value.toFixed(digits).replace(".", t("number.decimal")); }
    if (count < 1024) return t("bytes.b", { n: count });
    if (count < 1024 * 1024) return t("bytes.kib", { n: decimal(count / 1024, 1) });
    return t("bytes.mib", { n: decimal(count / (1024 * 1024), 2) });
  }

  function base64ByteCount(text) {
    if (typeof text !== "string" || text.length === 0) return 0;
    var padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
    return Math.floor((text.length * 3) / 4) - padding;
  }

  // ---- activity panel -----------------------------------------------------

  var activityList = document.getElementById("activity-list");
  var activityCount = 0;

  function showActivityCount() {
    document.getElementById("activity-count").textContent = texts.count("activity.count", activityCount);
  }

  function logActivity(direction, action, detail) {
    activityCount += 1;
    showActivityCount();
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
    logActivity("out", action, t("activity.request"));
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
    logActivity("out", action, t("activity.event"));
  }

  // ---- host events ----------------------------------------------------------

  var pill = document.getElementById("host-pill");

  function setPill(state, text) {
    pill.setAttribute("data-state", state);
    pill.textContent = text;
  }

  bridge.on("*", function (data, message) {
    logActivity("in", message.payload.action, t("activity.event"));
  });
  bridge.on("host.ready", function () {
    setPill("connected", t("pill.connected"));
  });
  bridge.on("host.background", function () {
    setPill("background", t("pill.background"));
  });
  bridge.on("host.foreground", function () {
    setPill("connected", t("pill.connected"));
    if (host.capabilities) queryCapabilities();
  });
  bridge.on("journey.cancel", function (data) {
    var notice = document.getElementById("host-notice");
    showNotice(notice, "warn", t("cancel.title"),
      data && data.reason ? t("cancel.reason", { reason: data.reason }) : t("cancel.nothingMore"));
  });

  // ---- step 1: capabilities -------------------------------------------------

  var PERMISSION_STATES = ["granted", "denied", "notDetermined", "restricted", "notApplicable"];

  function permissionBadge(state) {
    if (!state) return el("span", "badge none", "—");
    return el("span", "badge " + state, wordFor("permission.", state, PERMISSION_STATES));
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
      supported.appendChild(el("span", "badge " + (info.supported ? "yes" : "no"), info.supported ? t("caps.yes") : t("caps.no")));
      row.appendChild(supported);
      row.appendChild(el("td", null, info.version || "—"));
      var permission = el("td");
      permission.appendChild(permissionBadge(info.permissionState));
      row.appendChild(permission);
      body.appendChild(row);
    });
    table.hidden = ids.length === 0;
    var summary = document.getElementById("host-summary");
    summary.textContent = t("host.summary", {
      environment: host.environment || t("host.unknownEnvironment"),
      version: host.hostVersion || t("host.unknownVersion"),
      capabilities: ids.length === 0 ? t("host.noCapabilities") : texts.count("host.capabilities", ids.length)
    });
  }

  function queryCapabilities() {
    var chip = document.getElementById("host-status");
    var notice = document.getElementById("host-notice");
    return request("capability.query", {}, { timeout: QUERY_TIMEOUT_MS }).then(
      function (payload) {
        if (payload.status !== "success" || !payload.data || typeof payload.data.capabilities !== "object") {
          host.capabilities = {};
          setChip(chip, t("host.noAnswer"), "warn");
          showNotice(notice, "warn", t("host.undescribedTitle"), t("host.undescribedBody", {
            status: payload.status, code: payload.error ? " (" + payload.error.code + ")" : ""
          }));
          return;
        }
        host.environment = payload.data.environment || null;
        host.hostVersion = payload.data.hostVersion || null;
        host.capabilities = payload.data.capabilities;
        setChip(chip, t("host.connected"), "good");
        setPill("connected", t("pill.connected"));
        renderCapabilities();
        offerChipStep();
      },
      function (error) {
        host.capabilities = {};
        setChip(chip, t("host.noAnswer"), "bad");
        showNotice(notice, "bad", t("host.unansweredTitle"), t("host.unansweredBody", { message: error.message }));
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
    if (step.enter) {
      step.enter();
      return;
    }
    if (isDeclaredUnsupported(step)) {
      setChip(part(step.card, "status"), t("status.notAvailable"), "warn");
      showNotice(part(step.card, "notice"), "warn", t(name + ".unsupported"),
        t("capture.notListed", { capability: step.capability }));
      capture.textContent = t("action.tryAnyway");
      capture.disabled = false;
      skip.hidden = false;
      skip.disabled = false;
      if (autostart) window.setTimeout(function () { recordAndContinue(name, { status: "unsupported", code: "NOT_DECLARED" }); }, AUTO_ADVANCE_MS);
      return;
    }
    setChip(part(step.card, "status"), t("status.ready"), null);
    capture.disabled = false;
    skip.hidden = true;
    if (autostart) runStep(name);
  }

  // A host's error message is a sentence for the person, shown as it is; codes and technical
  // detail go to the activity log, not to the person.
  function sentence(text, fallback) {
    var value = String(text || "").trim();
    if (!value) return fallback;
    return /[.!?]$/.test(value) ? value : value + ".";
  }

  function describeCaptureProblem(step, payload, error) {
    switch (payload.status) {
      case "cancelled":
        return { tone: "warn", chip: t("status.cancelled"), title: t("capture.cancelledTitle"),
          body: t("capture.cancelledBody"), retry: true };
      case "unsupported":
        return { tone: "warn", chip: t("status.notAvailable"), title: t(step.name + ".unsupported"),
          body: sentence(error.message, t("capture.unsupportedBody")), retry: false };
      case "acknowledged":
        return { tone: "warn", chip: t("status.noImage"), title: t("capture.noImageTitle"),
          body: t("capture.noImageBody"), retry: true };
      case "error":
        if (error.code === "BUSY") {
          return { tone: "warn", chip: t("status.busy"), title: t("capture.busyTitle"),
            body: t("capture.busyBody"), retry: true };
        }
        return { tone: "bad", chip: t("status.failed"), title: t("capture.failedTitle"),
          body: sentence(error.message, t("problem.noDetails")),
          retry: error.recoverable !== false };
      default:
        return { tone: "bad", chip: t("status.unexpected"), title: t("problem.unexpectedTitle"),
          body: t("problem.unexpectedBody", { status: payload.status }), retry: true };
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
    // No break inside the size: it would make the card a line taller in the narrow column.
    fact(t("fact.size"), data.imageWidth + "\u00a0×\u00a0" + data.imageHeight + "\u00a0px");
    fact(t("fact.type"), mimeType);
    fact(t("fact.imageData"), formatBytes(base64ByteCount(data.imageBase64)));
    if ("encryptedBlobBase64" in data) fact(t("fact.encryptedPackage"), formatBytes(base64ByteCount(data.encryptedBlobBase64)));
    if ("unencryptedBlobBase64" in data) fact(t("fact.unencryptedPackage"), formatBytes(base64ByteCount(data.unencryptedBlobBase64)));
    if (step.moreFacts) step.moreFacts(data, fact);
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

  // ---- the document's machine-readable zone ------------------------------------------

  var ZONE_STATUSES = ["notFound", "unverified", "unavailable"];
  // What the last successful document capture said of the zone (its `mrz`): null when the host
  // reads no zones (no `mrz` member) or no document capture has succeeded yet.
  var documentZone = null;
  var documentPhotoTaken = false;

  function zoneWasRead() {
    return documentZone !== null && documentZone.status === "read";
  }

  /** A field of a zone that was read, without its trailing fillers; "" when it has none. */
  function zoneField(zone, name) {
    var fields = zone && typeof zone.fields === "object" && zone.fields || {};
    return typeof fields[name] === "string" ? fields[name].replace(/<+$/, "") : "";
  }

  /** The kind of document a zone's document code names (P, I/A/C, V), in words. */
  function documentKind(zone) {
    var code = zoneField(zone, "documentCode").charAt(0);
    if (code === "P") return t("zone.kind.passport");
    if (code === "V") return t("zone.kind.visa");
    if (code === "I" || code === "A" || code === "C") return t("zone.kind.idCard");
    return t("zone.kind.other");
  }

  /**
   * The document step's fact about the zone, in words: whether it was read (and of which kind of
   * document, in which format). Nothing of the holder's data: the chip step names the document
   * number when it opens the chip with the zone.
   */
  function zoneFacts(data, fact) {
    var zone = data.mrz;
    if (!zone || typeof zone !== "object") return;
    if (zone.status !== "read") {
      fact(t("fact.zone"), wordFor("zone.", String(zone.status), ZONE_STATUSES));
      return;
    }
    var details = [documentKind(zone), typeof zone.format === "string" ? zone.format : ""].filter(Boolean);
    fact(t("fact.zone"), t("zone.read", { details: details.join(", ") }));
  }

  /** Remembers a document capture's zone for the chip, and records how it went (`mrz`, `mrzFormat`). */
  function noteDocumentZone(data, outcome) {
    documentPhotoTaken = true;
    documentZone = data.mrz && typeof data.mrz === "object" ? data.mrz : null;
    if (documentZone) {
      outcome.mrz = String(documentZone.status);
      if (zoneWasRead() && typeof documentZone.format === "string") outcome.mrzFormat = documentZone.format;
    }
    chipZoneChanged();
  }

  /** Sends the step's request; false when the step's input (the chip's key) is not complete. */
  function runStep(name) {
    var step = steps[name];
    var capture = part(step.card, "capture");
    var skip = part(step.card, "skip");
    var notice = part(step.card, "notice");
    var requestData = step.buildRequest();
    if (!requestData) return false;
    step.setEditable(false);
    capture.disabled = true;
    skip.disabled = true;
    notice.hidden = true;
    setChip(part(step.card, "status"), step.busyText, "busy");

    request(step.action, requestData).then(
      function (payload) {
        if (payload.status === "success" && payload.data && step.accepts(payload.data)) {
          var result = step.showResult(payload.data);
          capture.textContent = step.againText;
          capture.disabled = false;
          step.setEditable(true);
          skip.hidden = true;
          recordAndContinue(name, result);
          return;
        }
        var problem = step.describeProblem(payload, payload.error || {});
        var outcome = { status: payload.status };
        if (payload.error) {
          outcome.code = payload.error.code;
          outcome.recoverable = payload.error.recoverable;
        }
        offerChoices(name, problem, outcome);
      },
      function (error) {
        offerChoices(name, {
          tone: "bad", chip: t("status.noAnswer"), title: t("problem.noAnswerTitle"),
          body: t("problem.noAnswerBody", { message: error.message }), retry: true
        }, { status: "error", code: error.code || "CLIENT_ERROR" });
      }
    );
    return true;
  }

  function offerChoices(name, problem, outcome) {
    var step = steps[name];
    var capture = part(step.card, "capture");
    var skip = part(step.card, "skip");
    setChip(part(step.card, "status"), problem.chip, problem.tone);
    showNotice(part(step.card, "notice"), problem.tone, problem.title, problem.body);
    capture.textContent = t("action.tryAgain");
    capture.hidden = !problem.retry;
    capture.disabled = false;
    skip.hidden = false;
    skip.disabled = false;
    step.setEditable(true);
    step.pendingOutcome = outcome;
    if (autostart) window.setTimeout(function () { recordAndContinue(name, outcome); }, AUTO_ADVANCE_MS);
    else if (problem.focus) problem.focus();
  }

  function recordAndContinue(name, outcome) {
    var step = steps[name];
    if (finished) return;
    var firstTime = step.outcome === null;
    step.outcome = outcome;
    step.pendingOutcome = null;
    part(step.card, "skip").hidden = true;
    if (outcome.status !== "success") {
      part(step.card, "capture").disabled = true;
      step.setEditable(false);
    }
    if (!firstTime) {
      renderSummary();
      return;
    }
    var next = order[order.indexOf(name) + 1];
    if (next) enterStep(next);
    else enterFinish();
  }

  Object.keys(steps).forEach(function (name) {
    var step = steps[name];
    if (step.form) {
      step.form.addEventListener("submit", function (event) {
        event.preventDefault();
        if (!part(step.card, "capture").disabled) runStep(name);
      });
    } else {
      part(step.card, "capture").addEventListener("click", function () { runStep(name); });
    }
    part(step.card, "skip").addEventListener("click", function () {
      recordAndContinue(name, step.pendingOutcome || { status: "skipped" });
    });
  });

  // ---- optional step: the document's chip ----------------------------------------

  function chipField(name) {
    return chipForm.elements.namedItem(name);
  }

  CHIP_KEY_FIELDS.forEach(function (name) {
    if (params.has(name)) chipField(name).value = params.get(name);
    chipField(name).addEventListener("input", function () { chipField(name).removeAttribute("aria-invalid"); });
  });

  /** Adds the chip step when the host offers nfc.read, until the journey has moved past the selfie. */
  function offerChipStep() {
    var info = host.capabilities["nfc.read"];
    if (!info || info.supported !== true || order.indexOf("chip") !== -1 || steps.selfie.outcome) return;
    order.push("chip");
    steps.chip.card.hidden = false;
    document.querySelector('#stepper li[data-step="chip"]').hidden = false;
  }

  function hasChipKeyInForm() {
    return CHIP_KEY_FIELDS.some(function (name) { return chipField(name).value.trim() !== ""; });
  }

  function focusChipForm() {
    var firstEmpty = CHIP_KEY_FIELDS.map(chipField).filter(function (input) { return input.value === ""; })[0];
    (firstEmpty || part(steps.chip.card, "capture")).focus();
  }

  /*
   * Where the chip's key comes from: "photo" (the host's read of the document photo's zone:
   * nfc.read with keyFrom) or "typed" (the form). `entered`: the step has been shown; `typedByChoice`:
   * the person asked for the form; `sent`: the source of the last request sent.
   */
  var chipKey = { source: "typed", entered: false, typedByChoice: false, sent: null };

  /** Shows the form or the words saying the key comes from the photo, and the control that switches. */
  function setChipKeySource(source) {
    var photo = source === "photo";
    var fromPhoto = part(steps.chip.card, "from-photo");
    var capture = part(steps.chip.card, "capture");
    chipKey.source = source;
    chipFields.hidden = photo;
    keySource.hidden = !zoneWasRead();
    fromPhoto.hidden = !photo;
    var number = zoneField(documentZone, "documentNumber");
    fromPhoto.textContent = !photo ? "" : number ? t("chip.fromPhotoNumber", { number: number }) : t("chip.fromPhoto");
    keySwitch.textContent = t(photo ? "chip.typeInstead" : "chip.usePhoto");
    // With no fields to fill, Read chip carries the words saying where its key comes from.
    if (photo) capture.setAttribute("aria-describedby", fromPhoto.id);
    else capture.removeAttribute("aria-describedby");
  }

  keySwitch.addEventListener("click", function () {
    var toPhoto = chipKey.source !== "photo";
    chipKey.typedByChoice = !toPhoto;
    setChipKeySource(toPhoto ? "photo" : "typed");
    if (toPhoto) part(steps.chip.card, "capture").focus();
    else focusChipForm();
  });

  /** A newer document photo changes the key on offer, unless the person chose to type it. */
  function chipZoneChanged() {
    if (!chipKey.entered || finished) return;
    if (!zoneWasRead()) setChipKeySource("typed");
    else setChipKeySource(chipKey.source === "typed" && chipKey.typedByChoice ? "typed" : "photo");
  }

  /** Why the key must be typed: the document photo's zone was not read, in words. */
  function typedKeyReason() {
    if (!documentPhotoTaken) return t("chip.typeWhy.noPhoto");
    var status = documentZone ? documentZone.status : null;
    return ZONE_STATUSES.indexOf(status) !== -1 ? t("chip.typeWhy." + status) : t("chip.typeWhy.notRead");
  }

  function enterChipStep() {
    var card = steps.chip.card;
    setChip(part(card, "status"), t("status.ready"), null);
    chipKey.entered = true;
    setChipKeySource(zoneWasRead() ? "photo" : "typed");
    steps.chip.setEditable(true);
    part(card, "capture").disabled = false;
    var skip = part(card, "skip");
    skip.hidden = false;
    skip.disabled = false;
    if (autostart) {
      var code = chipKey.source !== "photo" && !hasChipKeyInForm() ? "NO_KEY" : runStep("chip") ? null : "INVALID_KEY";
      if (code) window.setTimeout(function () { recordAndContinue("chip", { status: "skipped", code: code }); }, AUTO_ADVANCE_MS);
      return;
    }
    if (chipKey.source === "photo") {
      part(card, "capture").focus();
      return;
    }
    showNotice(part(card, "notice"), "info", typedKeyReason(), t("chip.typeKey"));
    focusChipForm();
  }

  /** The nfc.read request: the key from the document photo, or the one in the form (null when it is not complete). */
  function chipRequest() {
    var data = chipKey.source === "photo" ? { keyFrom: "documentCapture" } : chipKeyFromForm();
    if (data) chipKey.sent = chipKey.source;
    return data;
  }

  /** The nfc.read request from the form, or null (with the fields to fix marked) when it is not complete. */
  function chipKeyFromForm() {
    var value = function (name) { return chipField(name).value.trim().toUpperCase(); };
    var problems = [];
    var data;
    function check(name, valid) {
      if (valid) return;
      chipField(name).setAttribute("aria-invalid", "true");
      problems.push(name);
    }
    var mrzGiven = ["documentNumber", "dateOfBirth", "dateOfExpiry"].some(function (name) { return value(name) !== ""; });
    if (!mrzGiven && value("can") !== "") {
      check("can", /^[0-9]{6}$/.test(value("can")));
      data = { can: value("can") };
    } else {
      check("documentNumber", /^[A-Z0-9<]{1,22}$/.test(value("documentNumber")));
      check("dateOfBirth", /^[0-9]{6}$/.test(value("dateOfBirth")));
      check("dateOfExpiry", /^[0-9]{6}$/.test(value("dateOfExpiry")));
      data = { documentNumber: value("documentNumber"), dateOfBirth: value("dateOfBirth"), dateOfExpiry: value("dateOfExpiry") };
    }
    if (problems.length === 0) return data;
    var notice = part(steps.chip.card, "notice");
    var body = !mrzGiven && value("can") === ""
      ? t("chip.keyMissing")
      : problems.indexOf("can") !== -1
        ? t("chip.canDigits")
        : t("chip.keyFormat");
    showNotice(notice, "warn", t("chip.keyTitle"), body);
    chipField(problems[0]).focus();
    return null;
  }

  var CHIP_PROBLEMS = ["NO_DOCUMENT", "ACCESS_DENIED", "PACE_NOT_SUPPORTED", "CHIP_READ_FAILED", "NOT_A_TRAVEL_DOCUMENT",
    "INVALID_REQUEST", "BUSY"];

  function describeChipProblem(payload, error) {
    var detail = sentence(error.message, t("problem.noDetails"));
    // The key from the photo did not serve: the form takes over.
    if (chipKey.sent === "photo" && payload.status === "error"
      && (error.code === "MRZ_NOT_READ" || error.code === "ACCESS_DENIED")) {
      setChipKeySource("typed");
      var denied = error.code === "ACCESS_DENIED";
      return { tone: denied ? "bad" : "warn", chip: t("chip.notRead"),
        title: t(denied ? "chip.photoKeyDenied" : "chip.photoKeyMissing"),
        body: t(denied ? "chip.photoKeyDeniedBody" : "chip.typeKey"), retry: true, focus: focusChipForm };
    }
    switch (payload.status) {
      case "cancelled":
        return { tone: "warn", chip: t("status.cancelled"), title: t("chip.cancelledTitle"),
          body: t("chip.cancelledBody"), retry: true };
      case "unsupported":
        return { tone: "warn", chip: t("status.notAvailable"), title: t("chip.unsupportedTitle"),
          body: detail, retry: false };
      case "error":
        // A key the host could not use can be corrected in the form; other failures say whether a retry can help.
        return { tone: error.code === "NO_DOCUMENT" || error.code === "BUSY" ? "warn" : "bad", chip: t("chip.notRead"),
          title: CHIP_PROBLEMS.indexOf(error.code) !== -1 ? t("chip.problem." + error.code) : t("chip.readFailed"),
          body: detail,
          retry: error.code === "INVALID_REQUEST" || error.recoverable !== false };
      default:
        return { tone: "bad", chip: t("status.unexpected"), title: t("problem.unexpectedTitle"),
          body: t("problem.unexpectedBody", { status: payload.status }), retry: true };
    }
  }

  var SIGNATURE_WORDS = ["valid", "unknownIssuer", "invalid", "notChecked"];
  var AUTHENTICITY_WORDS = ["valid", "unverifiedKey", "invalid", "notSupported", "notChecked"];

  function chipAuthenticitySummary(data) {
    var parts = [];
    if (data.chipAuthentication) {
      var withinPACE = /^PACE-CAM/.test(data.chipAuthentication.algorithm || "");
      parts.push(t(withinPACE ? "authenticity.chipWithinPACE" : "authenticity.chip",
        { result: wordFor("authenticity.", data.chipAuthentication.status, AUTHENTICITY_WORDS) }));
    }
    if (data.activeAuthentication) {
      parts.push(t("authenticity.active",
        { result: wordFor("authenticity.", data.activeAuthentication.status, AUTHENTICITY_WORDS) }));
    }
    return parts.join("; ");
  }

  var VERDICT_WORDS = ["genuine", "notGenuine", "notChecked"];

  function verdictTone(verdict) {
    return verdict === "genuine" ? "good" : verdict === "notGenuine" ? "bad" : "warn";
  }

  function renderChipResult(data) {
    var card = steps.chip.card;
    var signature = (data.passiveAuthentication || {}).status || "notChecked";
    var verdict = data.chipVerdict || "notChecked";
    setChip(part(card, "status"),
      t(verdict === "genuine" ? "chip.statusRead" : verdict === "notGenuine" ? "chip.statusNotGenuine" : "chip.statusUnverified"),
      verdictTone(verdict));
    var image = part(card, "image");
    image.hidden = !data.photo;
    if (data.photo) image.src = "data:" + (data.photoMimeType || "image/jpeg") + ";base64," + data.photo;
    var facts = el("dl");
    function fact(label, value, tone) {
      if (!value) return;
      facts.appendChild(el("dt", null, label));
      var words = facts.appendChild(el("dd", null, value));
      if (tone) words.setAttribute("data-tone", tone);
    }
    fact(t("chip.fact.name"), [data.givenNames, data.surname].filter(Boolean).join(" "));
    fact(t("chip.fact.document"), [data.documentCode, data.documentNumber, data.issuingState].filter(Boolean).join(" · "));
    fact(t("chip.fact.nationality"), data.nationality);
    fact(t("chip.fact.born"), data.dateOfBirth);
    fact(t("chip.fact.expires"), data.dateOfExpiry);
    fact(t("chip.fact.openedWith"), data.accessControl);
    fact(t("chip.fact.verdict"), wordFor("verdict.", verdict, VERDICT_WORDS), verdictTone(verdict));
    var printed = printedPageAgreement(data);
    if (printed === "agrees") fact(t("chip.fact.printedPage"), t("printed.agrees"), "good");
    if (printed === "differs") {
      var fields = [];
      (Array.isArray(data.printedMRZ.differences) ? data.printedMRZ.differences : []).forEach(function (name) {
        var words = wordFor("printed.field.", String(name), PRINTED_FIELDS);
        if (fields.indexOf(words) === -1) fields.push(words);
      });
      fact(t("chip.fact.printedPage"), fields.length ? t("printed.differsIn", { fields: fields.join(", ") }) : t("printed.differs"),
        "bad");
    }
    var revocation = (data.passiveAuthentication || {}).revocation;
    var signatureWords = wordFor("signature.", signature, SIGNATURE_WORDS);
    fact(t("chip.fact.signature"), revocation === "revoked" ? t("signature.revoked")
      : revocation === "notRevoked" ? t("signature.notRevoked", { words: signatureWords }) : signatureWords);
    fact(t("chip.fact.genuineChip"), chipAuthenticitySummary(data));
    fact(t("chip.fact.read"), (data.dataGroupsRead || []).join(", "));
    part(card, "facts").replaceChildren(facts);
    part(card, "result").hidden = false;
    if (verdict !== "genuine") {
      var reasons = (data.chipVerdictReasons || []).map(function (reason) { return reason.message; });
      showNotice(part(card, "notice"), verdictTone(verdict),
        t(verdict === "notGenuine" ? "chip.notGenuineTitle" : "chip.unverifiedTitle"),
        reasons.length ? reasons.join(". ") + "." : t("chip.noReason"));
    }
  }

  var PRINTED_FIELDS = ["documentCode", "issuingState", "surname", "givenNames", "documentNumber", "nationality",
    "dateOfBirth", "sex", "dateOfExpiry", "optionalData", "optionalData2", "format"];

  /** Whether the chip agrees with the zone printed on the document photo: "agrees", "differs" or "notCompared". */
  function printedPageAgreement(data) {
    var printed = data.printedMRZ;
    if (!printed || typeof printed !== "object" || printed.compared !== true) return "notCompared";
    return printed.agrees === true ? "agrees" : printed.agrees === false ? "differs" : "notCompared";
  }

  /** What the host hears about the chip: verdicts only, none of the holder's data. */
  function chipOutcome(data) {
    var outcome = {
      status: "success",
      keySource: chipKey.sent || chipKey.source,
      printedMRZ: printedPageAgreement(data),
      accessControl: data.accessControl,
      chipVerdict: data.chipVerdict || "notChecked",
      passiveAuthentication: (data.passiveAuthentication || {}).status || "notChecked",
      dataGroupsRead: data.dataGroupsRead || [],
      photoBytes: base64ByteCount(data.photo)
    };
    if (data.chipAuthentication) outcome.chipAuthentication = data.chipAuthentication.status;
    if (data.activeAuthentication) outcome.activeAuthentication = data.activeAuthentication.status;
    return outcome;
  }

  // ---- step 4: finish ---------------------------------------------------------

  function journeyResult() {
    var result = {
      outcome: order.every(function (name) {
        return steps[name].optional || (steps[name].outcome && steps[name].outcome.status === "success");
      }) ? "completed" : "incomplete",
      environment: host.environment,
      hostVersion: host.hostVersion,
      language: language,
      steps: {}
    };
    order.forEach(function (name) { result.steps[name] = steps[name].outcome || { status: "skipped" }; });
    return result;
  }

  var SUMMARY_STATUSES = ["skipped", "cancelled", "unsupported", "error", "acknowledged"];

  function renderSummary() {
    var list = document.getElementById("finish-list");
    list.replaceChildren();
    order.forEach(function (name) {
      var outcome = steps[name].outcome || { status: "skipped" };
      var item = el("li");
      item.appendChild(el("span", null, steps[name].title));
      var text;
      if (outcome.status !== "success") {
        var status = wordFor("summary.status.", outcome.status, SUMMARY_STATUSES);
        text = outcome.code ? t("summary.withCode", { status: status, code: outcome.code }) : status;
      } else if (name === "chip") {
        text = t("summary.chipRead",
          { access: outcome.accessControl, verdict: wordFor("summary.verdict.", outcome.chipVerdict, VERDICT_WORDS) });
      } else text = outcome.width + " × " + outcome.height + " " + (outcome.mimeType || "");
      item.appendChild(el("strong", null, text));
      list.appendChild(item);
    });
    list.hidden = false;
    var result = journeyResult();
    var chipRead = steps.chip.outcome && steps.chip.outcome.status === "success";
    document.getElementById("finish-summary").textContent = result.outcome === "completed"
      ? t(chipRead ? "finish.readyWithChip" : "finish.ready")
      : t("finish.incomplete");
  }

  function enterFinish() {
    setCurrentStep("finish");
    renderSummary();
    var button = document.getElementById("finish-button");
    button.disabled = false;
    setChip(document.getElementById("finish-status"), t("status.ready"), null);
    if (autostart) window.setTimeout(finish, AUTO_ADVANCE_MS);
  }

  function finish() {
    if (finished) return;
    var result = journeyResult();
    var chip = document.getElementById("finish-status");
    try {
      sendEvent("journey.complete", result);
    } catch (error) {
      setChip(chip, t("finish.notSent"), "bad");
      document.getElementById("finish-summary").textContent = t("finish.unreachable", { message: error.message });
      return;
    }
    finished = true;
    order.forEach(function (name) {
      part(steps[name].card, "capture").hidden = true;
      part(steps[name].card, "skip").hidden = true;
    });
    chipFields.disabled = true;
    keySwitch.hidden = true;
    document.getElementById("finish-button").hidden = true;
    var completed = result.outcome === "completed";
    setChip(chip, t(completed ? "finish.completed" : "finish.sentWithGaps"), completed ? "good" : "warn");
    document.getElementById("finish-summary").textContent = t(completed ? "finish.sent" : "finish.sentIncomplete");
    var verdict = document.getElementById("finish-verdict");
    verdict.textContent = t(completed ? "finish.verdictComplete" : "finish.verdictGaps");
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
  showActivityCount();

  if (!bridge.isAvailable()) {
    setPill("missing", t("pill.missing"));
    setChip(document.getElementById("host-status"), t("pill.missing"), "bad");
    document.getElementById("host-summary").textContent = t("noHost.summary");
    showNotice(document.getElementById("host-notice"), "bad", t("noHost.title"), t("noHost.body"));
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
