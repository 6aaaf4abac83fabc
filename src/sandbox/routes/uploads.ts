// Sandbox route for uploads: one multipart file, size-checked, stored under a sanitised name.
import { z } from "zod";
import { endpoints } from "../../api/index.js";
import { endpoint } from "../../api/endpoint.js";
import { route, type Route } from "../route.js";
import { badRequest } from "../errors.js";

/** The wire side of POST /user_uploads: the file travels as a multipart part, not as parameters. */
const uploadOnWire = endpoint({ ...endpoints.uploads.upload, params: z.object({}) });

export const uploadRoutes: Route[] = [
  route(uploadOnWire, ({ realm, user, files }) => {
    if (files.length === 0) throw badRequest("You must specify a file to upload");
    if (files.length > 1) throw badRequest("You may only upload one file at a time");
    const file = files[0]!;
    const maxMib = realm.settings.maxFileUploadSizeMib;
    if (file.data.length > maxMib * 1024 * 1024)
      throw badRequest(
        `File is larger than this server's configured maximum upload size (${maxMib} MiB).`,
      );
    const stored = realm.uploads.add(user, file.filename, file.mimeType, file.data);
    return { url: stored.path, uri: stored.path, filename: stored.filename };
  }),
];
