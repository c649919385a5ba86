# The official Deno image; runs both environments (live :8080, sandbox :8081) on the embedded
# defaults unless DATABASE_URL / NATS_URL point at real servers.
FROM denoland/deno:2.9.6
WORKDIR /app
COPY deno.json deno.lock ./
COPY actors ./actors
COPY migrations ./migrations
COPY routes ./routes
COPY src ./src
RUN deno install --entrypoint src/main.ts
ENV DATA_DIR=/data
VOLUME /data
EXPOSE 8080 8081
CMD ["task", "start"]
