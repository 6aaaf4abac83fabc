// Behaviours of uploads ported from the server's zerver/tests/test_upload.py (zerver/views/upload.py).
import { expect, it } from "vitest";
import { request } from "undici";
import { downloadUpload } from "topicbot/client";
import { ManualClock } from "topicbot/sandbox";
import {
  describeContract,
  expectApiError,
  needSandbox,
  rawRequest,
  type ContractServer,
} from "./servers.js";

const basic = (server: ContractServer, role: "bot" | "member" | "guest") => {
  const a = server.account(role)!;
  return `Basic ${Buffer.from(`${a.email}:${a.apiKey}`).toString("base64")}`;
};

const getRaw = async (server: ContractServer, path: string, authorization?: string) => {
  const res = await request(`${server.site}${path}`, {
    headers: authorization ? { authorization } : {},
  });
  return {
    status: res.statusCode,
    type: String(res.headers["content-type"] ?? ""),
    headers: res.headers,
    text: Buffer.from(await res.body.arrayBuffer()).toString("utf8"),
  };
};

describeContract(
  "uploads (upstream test_upload.py)",
  (server) => {
    const upload = async (text: string, filename = "zulip.txt") =>
      (
        await server()
          .client()
          .uploads.upload({ file: Buffer.from(text), filename })
      ).url;

    // upstream: test_upload.py FileUploadTest.test_file_upload_authed (uri and url, filename)
    it("answers url, uri and filename for an upload", async () => {
      const res = await server()
        .client()
        .uploads.upload({ file: Buffer.from("zulip!"), filename: "zulip.txt" });
      expect(res.url).toMatch(/^\/user_uploads\/\d+\/[0-9a-f]{2}\/[0-9a-zA-Z]+\/zulip\.txt$/);
      expect(res.uri).toBe(res.url);
      expect(res.filename).toBe("zulip.txt");
    });

    // upstream: test_upload.py FileUploadTest.test_file_download_authed_api (serve_file_url_backend answers a URL)
    it("answers JSON with a temporary URL through the API", async () => {
      const url = await upload("zulip!");
      const res = await getRaw(server(), `/api/v1${url}`, basic(server(), "bot"));
      expect(res.status).toBe(200);
      const body = JSON.parse(res.text) as Record<string, unknown>;
      expect(body).toMatchObject({ result: "success", msg: "" });
      expect(body.url).toMatch(/^\/user_uploads\/temporary\/[0-9A-Za-z]+\/zulip\.txt$/);
    });

    // upstream: test_upload.py FileUploadTest.test_serve_file_unauthed_from_token (the temporary URL serves the bytes without credentials)
    it("serves the bytes at the temporary URL without credentials", async () => {
      const url = await upload("temporary bytes");
      const api = await getRaw(server(), `/api/v1${url}`, basic(server(), "bot"));
      const temporary = (JSON.parse(api.text) as { url: string }).url;
      const res = await getRaw(server(), temporary);
      expect(res.status).toBe(200);
      expect(res.text).toBe("temporary bytes");
    });

    // upstream: test_upload.py FileUploadTest.test_serve_file_unauthed_token_with_invalid_token
    it("refuses an invalid token", async () => {
      const res = await getRaw(server(), "/user_uploads/temporary/DEADBEEF/zulip.txt");
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toMatchObject({ result: "error", msg: "Invalid token" });
    });

    // upstream: test_upload.py FileUploadTest.test_serve_file_unauthed_token_with_wrong_filename
    it("refuses a temporary URL with another filename", async () => {
      const url = await upload("x", "right.txt");
      const api = await getRaw(server(), `/api/v1${url}`, basic(server(), "bot"));
      const temporary = (JSON.parse(api.text) as { url: string }).url;
      const res = await getRaw(server(), temporary.replace(/right\.txt$/, "wrong.txt"));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toMatchObject({ msg: "Invalid filename" });
    });

    // upstream: test_upload.py FileUploadTest.test_serve_file_unauthed_token_expired (SIGNED_ACCESS_TOKEN_VALIDITY_IN_SECONDS)
    it("expires the temporary URL after 60 seconds", async (ctx) => {
      const sandbox = needSandbox(ctx, server());
      const url = await upload("soon gone");
      const api = await getRaw(server(), `/api/v1${url}`, basic(server(), "bot"));
      const temporary = (JSON.parse(api.text) as { url: string }).url;
      (sandbox.realm.clock as ManualClock).advance(61_000);
      const res = await getRaw(server(), temporary);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toMatchObject({ msg: "Invalid token" });
    });

    // upstream: test_upload.py FileUploadTest.test_file_download_authed (GET /user_uploads/... with API credentials serves the bytes)
    it("serves the bytes at /user_uploads with Basic credentials", async () => {
      const url = await upload("direct");
      const res = await getRaw(server(), url, basic(server(), "bot"));
      expect(res.status).toBe(200);
      expect(res.text).toBe("direct");
    });

    // upstream: test_upload.py FileUploadTest.test_non_existing_file_download ("This file does not exist or has been deleted.", 404)
    it("answers 404 with an HTML page for a file that does not exist", async () => {
      const res = await getRaw(
        server(),
        "/api/v1/user_uploads/2/ff/nonexistent/none.txt",
        basic(server(), "bot"),
      );
      expect(res.status).toBe(404);
      expect(res.type).toContain("text/html");
      expect(res.text).toContain("This file does not exist or has been deleted.");
    });

    // upstream: test_upload.py FileUploadTest.test_file_download_unauthorized ("You are not authorized to view this file.", 403)
    it("answers 403 with an HTML page to a user who may not read the file", async () => {
      const url = await upload("private");
      for (const path of [url, `/api/v1${url}`]) {
        const res = await getRaw(server(), path, basic(server(), "member"));
        expect(res.status).toBe(403);
        expect(res.text).toContain("You are not authorized to view this file.");
      }
    });

    // upstream: test_upload.py FileUploadTest.test_file_download_unauthed (the API path needs credentials: 401 with WWW-Authenticate)
    it("refuses the API path without credentials with 401 and WWW-Authenticate", async () => {
      const url = await upload("secret");
      const res = await getRaw(server(), `/api/v1${url}`);
      expect(res.status).toBe(401);
      expect(res.headers["www-authenticate"]).toBe('Basic realm="zulip"');
      expect(JSON.parse(res.text)).toMatchObject({ code: "UNAUTHORIZED" });
    });

    // upstream: test_upload.py FileUploadTest.test_file_download_authorization_public (a message in a public channel shares the file)
    it("lets readers of a message that links the file read it", async () => {
      const url = await upload("shared");
      await server()
        .client()
        .messages.send({ type: "channel", to: "general", topic: "files", content: `[f](${url})` });
      const res = await getRaw(server(), `/api/v1${url}`, basic(server(), "member"));
      expect(res.status).toBe(200);
    });

    // upstream: test_upload.py FileUploadTest.test_multiple_upload_failure / test_no_file_upload_failure
    it("refuses a request without a file", async () => {
      const res = await rawRequest(server(), "bot", "POST", "/user_uploads", {});
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ msg: "You must specify a file to upload" });
    });

    // upstream: test_upload.py FileUploadTest.test_file_download_authed_api (the client's download follows the temporary URL)
    it("downloads through the client: temporary URL, then bytes", async () => {
      const url = await upload("via the helper", "helper.txt");
      const file = await downloadUpload(server().client(), url);
      expect(file.data.toString()).toBe("via the helper");
      const full = await downloadUpload(server().client(), `${server().site}${url}`);
      expect(full.data.toString()).toBe("via the helper");
      await expect(downloadUpload(server().client(), "/not/an/upload")).rejects.toThrow(
        /no upload path/,
      );
      await expectApiError(downloadUpload(server().client("member"), url), "BAD_REQUEST");
    });
  },
  { clock: new ManualClock() },
);
