"""fastapi-users, set up as its documentation shows (SQLAlchemy on asyncpg, JWT bearer
login, the library's default Argon2id hash: argon2-cffi's m=65536 t=3 p=4), as the peer
of authd's login in Benchmarks/bench.py.

    DATABASE_URL=postgresql+asyncpg://… python fastapi_users_app.py add-user NAME PASSWORD
    DATABASE_URL=… uvicorn fastapi_users_app:app --workers 2 --port PORT
Login: POST /auth/jwt/login, form fields username (the e-mail) and password.
"""
import asyncio
import os
import sys
import uuid

from fastapi import Depends, FastAPI
from fastapi_users import BaseUserManager, FastAPIUsers, UUIDIDMixin, schemas
from fastapi_users.authentication import AuthenticationBackend, BearerTransport, JWTStrategy
from fastapi_users.db import SQLAlchemyBaseUserTableUUID, SQLAlchemyUserDatabase
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase

SECRET = "bench-only-secret-bench-only-secret"
engine = create_async_engine(os.environ["DATABASE_URL"], pool_size=16)
sessions = async_sessionmaker(engine, expire_on_commit=False)


class Base(DeclarativeBase):
    pass


class User(SQLAlchemyBaseUserTableUUID, Base):
    pass


class UserCreate(schemas.BaseUserCreate):
    pass


async def get_session():
    async with sessions() as session:
        yield session


async def get_user_db(session: AsyncSession = Depends(get_session)):
    yield SQLAlchemyUserDatabase(session, User)


class UserManager(UUIDIDMixin, BaseUserManager[User, uuid.UUID]):
    reset_password_token_secret = SECRET
    verification_token_secret = SECRET


async def get_user_manager(user_db=Depends(get_user_db)):
    yield UserManager(user_db)


backend = AuthenticationBackend(
    name="jwt",
    transport=BearerTransport(tokenUrl="auth/jwt/login"),
    get_strategy=lambda: JWTStrategy(secret=SECRET, lifetime_seconds=900),
)
users = FastAPIUsers[User, uuid.UUID](get_user_manager, [backend])
app = FastAPI()
app.include_router(users.get_auth_router(backend), prefix="/auth/jwt")


@app.get("/health")
async def health():
    return {"status": "ok"}


async def add_user(email, password):
    async with engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)
    async with sessions() as session:
        manager = UserManager(SQLAlchemyUserDatabase(session, User))
        await manager.create(UserCreate(email=email, password=password))
    await engine.dispose()


if __name__ == "__main__" and sys.argv[1:2] == ["add-user"]:
    asyncio.run(add_user(sys.argv[2], sys.argv[3]))
